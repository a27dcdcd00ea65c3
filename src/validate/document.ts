import { parseXml, type XmlElement } from './xml.js';

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
  const first = text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .charAt(0);
  if (first === '{' || first === '[') return 'json';
  if (first === '<') return 'xml';
  return undefined;
}

export function readDocument(text: string, format: BodyFormat): ReadResult {
  if (format === 'json') {
    try {
      return { ok: true, document: { format, value: JSON.parse(text.replace(/^\uFEFF/, '')) } };
    } catch (error) {
      return { ok: false, format, error: `invalid JSON: ${(error as Error).message}` };
    }
  }
  const parsed = parseXml(text);
  if (!parsed.ok) return { ok: false, format, error: `invalid XML: ${parsed.error}` };
  return { ok: true, document: { format, root: parsed.root } };
}
