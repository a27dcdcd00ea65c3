// What was worked out for texts that come again: a client polls for the same answer and sends the
// same set-up and header values, a recording holds them many times over, and each was read,
// judged and masked anew. A text is remembered as seen the first time and its value kept from the
// second: bodies that never come again (most answers hold codes of their own) then leave nothing
// behind but their text, where keeping what was made of each (an XML tree) cost the collector more
// than making it. Bounded: texts up to `longest` characters, 512 of them, forgotten together.
//
// Texts are found by a fingerprint (their length and a few of their characters) and compared
// whole, not by a map keyed by the text: a map hashes every character of each new string, and
// every body read is a new string, which cost more than the reading it was meant to save.

const TEXTS_KEPT = 512;
/** Texts of one fingerprint kept at once: texts alike but for their codes share one, and each is compared. */
const SAME_FINGERPRINT_KEPT = 4;
/** Characters of a text its fingerprint reads, spread over it. */
const SAMPLED = 24;
const SEEN_ONCE = Symbol('seen once');

interface Known<V> {
  text: string;
  value: V | typeof SEEN_ONCE;
}

function fingerprint(text: string): number {
  const length = text.length;
  let hash = length;
  const step = Math.max(1, Math.floor(length / SAMPLED));
  for (let at = length - 1; at >= 0; at -= step) hash = Math.imul(hash ^ text.charCodeAt(at), 0x9e3779b1);
  return hash;
}

/** Values of texts up to `longest` characters, kept once a text comes again. */
export class RecentTexts<V> {
  private readonly known = new Map<number, Known<V>[]>();
  private count = 0;

  constructor(private readonly longest: number) {}

  /** The value worked out for this text, by `work` unless it was kept. */
  get(text: string, work: (text: string) => V): V {
    if (text.length > this.longest) return work(text);
    const key = fingerprint(text);
    let alike = this.known.get(key);
    const known = alike?.find((entry) => entry.text === text);
    if (known === undefined) {
      if (this.count >= TEXTS_KEPT) {
        this.known.clear();
        this.count = 0;
        alike = undefined;
      }
      if (!alike) {
        alike = [];
        this.known.set(key, alike);
      }
      if (alike.length >= SAME_FINGERPRINT_KEPT) alike.shift();
      else this.count += 1;
      alike.push({ text, value: SEEN_ONCE });
      return work(text);
    }
    if (known.value !== SEEN_ONCE) return known.value;
    const value = work(text);
    known.value = value;
    return value;
  }
}
