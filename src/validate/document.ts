import { looksLikeBomlessUtf16 } from './encoding.js';
import { withoutBom } from './exchange.js';
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

/** Said of a body that does not parse and reads as text with NULs between its characters. */
const UTF16_HINT = ' (the body looks like UTF-16 without a byte order mark)';

export function readDocument(text: string, format: BodyFormat): ReadResult {
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
