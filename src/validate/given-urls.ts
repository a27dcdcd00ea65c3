import QuickLRU from 'quick-lru';
import type { Document } from './document.js';
import type { XmlElement } from './xml.js';

// What the order answers of a traffic gave: the checkout and upload URLs (the only URLs a client
// may use, as given) and the order's other values (its id, its items' ids), which a client that
// builds URLs by hand puts where a code belongs. Bounded: a long proxy run sees many orders.

export type Operation = 'checkout' | 'files';

export interface GivenUrl {
  operation: Operation;
  /** The order's id, when its answer named one: for messages. */
  order?: string;
}

export interface GivenCode extends GivenUrl {
  code: string;
  path: string;
}

/** Members whose value is a URL the client must use as given. */
const URL_MEMBERS = new Set(['setupurl', 'uploadurl']);
/** Shorter values are too common to say a client took them from the order. */
const MIN_VALUE_LENGTH = 3;

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

/** The last two non-empty segments of a path: `checkout/{code}` or `files/{code}`. */
function operationAndCode(path: string): { operation: Operation; code: string } | undefined {
  const segments = path.split('/').filter((segment) => segment !== '');
  const parent = segments.at(-2)?.toLowerCase();
  const code = segments.at(-1);
  if (code === undefined || (parent !== 'checkout' && parent !== 'files')) return undefined;
  return { operation: parent, code };
}

interface Found {
  urls: string[];
  values: string[];
  id?: string;
}

function walkJson(value: unknown, name: string, found: Found, depth: number): void {
  if (depth > 32) return;
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value);
    if (URL_MEMBERS.has(name)) found.urls.push(text);
    else if (!/^[a-z][a-z0-9+.-]*:/i.test(text)) found.values.push(text);
    if (name === 'id' && depth === 1 && found.id === undefined) found.id = text;
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) walkJson(item, name, found, depth + 1);
    return;
  }
  for (const [key, member] of Object.entries(value)) walkJson(member, key.toLowerCase(), found, depth + 1);
}

function walkXml(element: XmlElement, found: Found, depth: number): void {
  if (depth > 32) return;
  const name = element.local.toLowerCase();
  if (element.children.length === 0) {
    const text = element.text.trim();
    if (text === '') return;
    if (URL_MEMBERS.has(name)) found.urls.push(text);
    else if (!/^[a-z][a-z0-9+.-]*:/i.test(text)) found.values.push(text);
    if (name === 'id' && depth === 1 && found.id === undefined) found.id = text;
    return;
  }
  for (const child of element.children) walkXml(child, found, depth + 1);
}

/** The URLs an order answer gives (checkout.setupUrl, items[].files.*.uploadUrl), as written. */
export function givenUrlsOf(document: Document): string[] {
  const found: Found = { urls: [], values: [] };
  if (document.format === 'json') walkJson(document.value, '', found, 0);
  else walkXml(document.root, found, 0);
  return found.urls;
}

/** The service's base a given URL names: its origin and path before `checkout/{code}` or `files/{code}`. */
export function baseOfGivenUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!operationAndCode(parsed.pathname)) return undefined;
  const segments = parsed.pathname.replace(/\/+$/, '').split('/');
  return `${parsed.origin}${segments.slice(0, -2).join('/')}/`;
}

/**
 * A bounded map of what was learnt latest: at least the newest `capacity / 2` entries, at most
 * `capacity`. Evicting the oldest entry of one Map costs time that grows with what was evicted
 * before it (V8 skips over the deleted slots), which made a long proxy run slower with each order.
 */
function learnt<V>(capacity: number): QuickLRU<string, V> {
  return new QuickLRU<string, V>({ maxSize: Math.max(1, Math.floor(capacity / 2)) });
}

export class GivenUrls {
  private readonly paths: QuickLRU<string, GivenUrl>;
  /** Given URLs by their code, lower-case: a code used under another path, operation or casing was altered. */
  private readonly codes: QuickLRU<string, GivenCode>;
  private readonly values: QuickLRU<string, string | undefined>;
  private anything = false;

  constructor(capacity = 50_000) {
    this.paths = learnt(capacity);
    this.codes = learnt(capacity);
    this.values = learnt(capacity);
  }

  get empty(): boolean {
    return !this.anything;
  }

  /** Reads an order answer (of POST orders or GET orders/{id}, whose id `requested` is). */
  learn(document: Document, requested?: string): void {
    const found: Found = { urls: [], values: [] };
    if (document.format === 'json') walkJson(document.value, '', found, 0);
    else walkXml(document.root, found, 0);
    const order = found.id ?? requested;
    const codes = new Set<string>();
    for (const url of found.urls) {
      const path = pathOf(url);
      const shape = path === undefined ? undefined : operationAndCode(path);
      if (!path || !shape) continue;
      codes.add(shape.code);
      const given: GivenUrl =
        order === undefined ? { operation: shape.operation } : { operation: shape.operation, order };
      this.paths.set(path, given);
      this.codes.set(shape.code.toLowerCase(), { ...given, code: shape.code, path });
      this.anything = true;
    }
    if (requested !== undefined) this.remember(requested, order);
    for (const value of found.values) {
      if (value.length >= MIN_VALUE_LENGTH && !codes.has(value)) this.remember(value, order);
    }
  }

  /** The given URL with this path, if an order answer gave it. */
  given(path: string): GivenUrl | undefined {
    return this.paths.get(path);
  }

  /** The given URL whose code this is, perhaps cased otherwise. */
  byCode(code: string): GivenCode | undefined {
    return this.codes.get(code.toLowerCase());
  }

  /** Whether the value is one of an order answer's other values (an id, say), and whose. */
  orderValue(value: string): { order?: string } | undefined {
    if (!this.values.has(value)) return undefined;
    const order = this.values.get(value);
    return order === undefined ? {} : { order };
  }

  private remember(value: string, order: string | undefined): void {
    this.values.set(value, order);
    this.anything = true;
  }
}
