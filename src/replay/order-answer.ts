import { type Exchange, header } from '../validate/exchange.js';
import { answerDocument } from '../validate/traffic.js';
import type { XmlElement } from '../validate/xml.js';

// What an order answer (POST orders, GET orders/{id}) gives: the order's id and the checkout and
// upload URLs, each by its place in the answer (`checkout/setupurl`, `items/0/files/cover/uploadurl`).
// Codes are opaque, so a recorded URL is matched to a new one only by the place it was given at.

export interface OrderAnswer {
  id?: string;
  /** URL by its place in the answer; names lower-case, list items by index. */
  urls: Map<string, string>;
}

/** Members whose value is a URL the client must use as given. */
const URL_MEMBERS = new Set(['setupurl', 'uploadurl']);
const MAX_DEPTH = 32;

function walkJson(value: unknown, place: string, depth: number, out: OrderAnswer): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  for (const [key, member] of entries) {
    const name = key.toLowerCase();
    const here = place ? `${place}/${name}` : name;
    if (typeof member === 'string' && URL_MEMBERS.has(name)) out.urls.set(here, member);
    else if (depth === 0 && name === 'id' && (typeof member === 'string' || typeof member === 'number'))
      out.id = String(member);
    else walkJson(member, here, depth + 1, out);
  }
}

function walkXml(element: XmlElement, place: string, depth: number, out: OrderAnswer): void {
  if (depth > MAX_DEPTH) return;
  const counts = new Map<string, number>();
  for (const child of element.children) counts.set(child.local, (counts.get(child.local) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const child of element.children) {
    const name = child.local.toLowerCase();
    const index = seen.get(child.local) ?? 0;
    seen.set(child.local, index + 1);
    // Repeated elements (the items of a list) are told apart by their index among namesakes.
    const step = (counts.get(child.local) ?? 0) > 1 ? `${name}/${index}` : name;
    const here = place ? `${place}/${step}` : step;
    if (child.children.length === 0) {
      const text = child.text.trim();
      if (URL_MEMBERS.has(name) && text !== '') out.urls.set(here, text);
      else if (depth === 0 && name === 'id' && text !== '') out.id = text;
    } else walkXml(child, here, depth + 1, out);
  }
}

/** The id and URLs an accepted order answer gives; undefined for a refusal or an unreadable body. */
export function readOrderAnswer(exchange: Exchange): OrderAnswer | undefined {
  const document = answerDocument(exchange);
  const response = exchange.response;
  if (!document || !response) return undefined;
  const out: OrderAnswer = { urls: new Map() };
  if (document.format === 'json') walkJson(document.value, '', 0, out);
  else walkXml(document.root, '', 0, out);
  // An answer that names its order only in Location (orders/{id}) still names it.
  const location = /\/orders\/([^/?#]+)\/?(?:[?#]|$)/.exec(header(response.headers, 'location') ?? '')?.[1];
  if (out.id === undefined && location !== undefined) out.id = location;
  return out;
}
