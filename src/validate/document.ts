import { looksLikeBomlessUtf16 } from './encoding.js';
import { withoutBom } from './exchange.js';
import { RecentTexts } from './recent-texts.js';
import { MAX_DEPTH, parseXml, TOO_DEEP, type XmlElement } from './xml.js';

// A body read as the document it claims or turns out to be: JSON value or XML element tree.

export type BodyFormat = 'json' | 'xml';

export type Document = { format: 'json'; value: unknown } | { format: 'xml'; root: XmlElement };

export type ReadResult = { ok: true; document: Document } | { ok: false; format: BodyFormat; error: string };

/** The format a Content-Type names, if it names JSON or XML. */
export function formatOfMediaType(type: string | undefined): BodyFormat | undefined {
  if (!type) return undefined;
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return 'xml';
  return undefined;
}

/** Whether a media type is text the core reads whole (JSON, XML, text, forms), not file bytes. */
export function isTextualMediaType(type: string | undefined): boolean {
  return type !== undefined && /json|xml|text\/|x-www-form-urlencoded/i.test(type);
}

/** The format a body's first significant character shows (a BOM and white space are skipped). */
export function sniffFormat(text: string): BodyFormat | undefined {
  // Read in place: trimming first would copy a body that starts with white space.
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (index < text.length && /\s/.test(text.charAt(index))) index += 1;
  const first = text.charAt(index);
  if (first === '{' || first === '[') return 'json';
  if (first === '<') return 'xml';
  return undefined;
}

/**
 * Whether a parsed JSON value nests arrays and objects deeper than `limit`. JSON.parse itself
 * copes with any depth; the walk never goes deeper than the limit, so it cannot overflow either.
 */
function deeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) return value.some((item) => deeperThan(item, limit - 1));
  for (const key in value) if (deeperThan((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}

interface JsonFrame {
  /** Names met so far in an object; undefined for an array. */
  names?: Set<string>;
  /** An object's next string is a name; an array's items are counted. */
  awaitingName: boolean;
  /** The segment of the path that leads here from the frame above. */
  segment: string;
  lastName: string;
  index: number;
}

const JSON_STRUCTURE = /["{}[\],]/g;

/**
 * The first member named twice in one object of a JSON text that JSON.parse took, as a JSON pointer
 * to it: JSON.parse keeps the last, a first-wins or strict reader (I-JSON, RFC 7493) another.
 * One pass that stops only at quotes and structural characters.
 */
export function duplicateMember(text: string): string | undefined {
  // No object holds two members without a comma between them.
  if (!text.includes(',')) return undefined;
  const stack: JsonFrame[] = [];
  const segmentOf = (frame: JsonFrame | undefined) =>
    frame === undefined ? '' : frame.names ? frame.lastName : String(frame.index);
  JSON_STRUCTURE.lastIndex = 0;
  for (let match = JSON_STRUCTURE.exec(text); match; match = JSON_STRUCTURE.exec(text)) {
    const at = match.index;
    const top = stack.at(-1);
    switch (text.charCodeAt(at)) {
      case 0x22: {
        // A string: its end is the next quote that no odd run of backslashes escapes.
        let end = text.indexOf('"', at + 1);
        for (;;) {
          let slashes = 0;
          while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes += 1;
          if (slashes % 2 === 0) break;
          end = text.indexOf('"', end + 1);
        }
        if (top?.names && top.awaitingName) {
          const raw = text.slice(at + 1, end);
          const name = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
          if (top.names.has(name)) {
            const path = [...stack.slice(1).map((frame) => frame.segment), name];
            return `/${path.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
          }
          top.names.add(name);
          top.lastName = name;
          top.awaitingName = false;
        }
        JSON_STRUCTURE.lastIndex = end + 1;
        break;
      }
      case 0x7b: // {
        stack.push({ names: new Set(), awaitingName: true, segment: segmentOf(top), lastName: '', index: 0 });
        break;
      case 0x5b: // [
        stack.push({ awaitingName: false, segment: segmentOf(top), lastName: '', index: 0 });
        break;
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        break;
      default: // ,
        if (top?.names) top.awaitingName = true;
        else if (top) top.index += 1;
    }
  }
  return undefined;
}

/** Said of a body that does not parse and reads as text with NULs between its characters. */
const UTF16_HINT = ' (the body looks like UTF-16 without a byte order mark)';

// Bodies that come again are read once: a client polls for the same answer, and the proxy
// read it anew for every exchange. Documents are never changed once read, so one can stand for
// every body that spells it (see recent-texts.ts).
const LONGEST_REMEMBERED = 8 * 1024;
const recent = {
  json: new RecentTexts<ReadResult>(LONGEST_REMEMBERED),
  xml: new RecentTexts<ReadResult>(LONGEST_REMEMBERED),
};
const parseJson = (text: string) => parseDocument(text, 'json');
const parseXmlDocument = (text: string) => parseDocument(text, 'xml');

/** The body read as `format`. */
export function readDocument(text: string, format: BodyFormat): ReadResult {
  return format === 'json' ? recent.json.get(text, parseJson) : recent.xml.get(text, parseXmlDocument);
}

function parseDocument(text: string, format: BodyFormat): ReadResult {
  if (format === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(withoutBom(text));
    } catch (error) {
      const hint = looksLikeBomlessUtf16(text) ? UTF16_HINT : '';
      return { ok: false, format, error: `invalid JSON: ${(error as Error).message}${hint}` };
    }
    // The rules walk the value recursively; a hostile depth must end here, not in a stack overflow.
    if (deeperThan(value, MAX_DEPTH)) return { ok: false, format, error: `JSON ${TOO_DEEP}` };
    const twice = duplicateMember(text);
    if (twice !== undefined)
      return {
        ok: false,
        format,
        error: `invalid JSON: member ${twice} appears twice in one object (RFC 7493: readers keep the first, the last or neither)`,
      };
    return { ok: true, document: { format, value } };
  }
  const parsed = parseXml(text);
  if (!parsed.ok) {
    if (parsed.error === TOO_DEEP) return { ok: false, format, error: `XML ${TOO_DEEP}` };
    const hint = looksLikeBomlessUtf16(text) ? UTF16_HINT : '';
    return { ok: false, format, error: `invalid XML: ${parsed.error}${hint}` };
  }
  return { ok: true, document: { format, root: parsed.root } };
}
