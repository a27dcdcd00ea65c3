// What outlives an exchange (the findings kept for the reports, a client test's messages) must
// hold nothing of it but what it says. A string cut from a larger one (`slice`, `substring`, a regular expression's
// match) or joined from others is, in V8, a view that keeps the whole original alive: a 64 KiB cut
// of a 4 MiB body held 4 MiB. Kept strings are copied into memory of their own, and weighed as kept.

/** V8 makes no view of a string shorter than this (SlicedString::kMinLength): such strings are their own. */
const SHORTEST_VIEW = 13;

/** A string in memory of its own, the same text (UTF-16 code units as they are, lone surrogates too). */
export function ownText(text: string): string {
  return text.length < SHORTEST_VIEW ? text : Buffer.from(text, 'utf16le').toString('utf16le');
}

/** About what a value costs in V8's heap: two bytes a character, a few words an object or array. */
export interface Copied<T> {
  copy: T;
  weight: number;
}

/**
 * A deep copy of plain data (objects, arrays, strings, numbers, booleans) holding nothing of the
 * original, and its weight. An object met twice is copied once, as a shared one.
 */
export function keptCopy<T>(value: T): Copied<T> {
  const seen = new Map<object, unknown>();
  let weight = 0;
  const copy = (item: unknown): unknown => {
    if (typeof item === 'string') {
      weight += 16 + 2 * item.length;
      return ownText(item);
    }
    if (item === null || typeof item !== 'object') {
      weight += 8;
      return item;
    }
    const met = seen.get(item);
    if (met !== undefined) return met;
    if (Array.isArray(item)) {
      const array: unknown[] = [];
      seen.set(item, array);
      weight += 32 + 8 * item.length;
      for (const element of item) array.push(copy(element));
      return array;
    }
    const object: Record<string, unknown> = Object.create(
      Object.getPrototypeOf(item) === null ? null : Object.prototype,
    );
    seen.set(item, object);
    weight += 64;
    for (const [key, member] of Object.entries(item)) {
      if (member === undefined) continue;
      weight += 16;
      object[key] = copy(member);
    }
    return object;
  };
  return { copy: copy(value) as T, weight };
}
