import fc from 'fast-check';
import { propertiesOf, type SchemaName, schemas, xmlNameOf } from '../../contract/schemas.js';
import { XSI_NAMESPACE } from '../../validate/xml.js';

// Spellings of one document: what a parser must read the same. XML: the XMLSchema-instance
// namespace under another prefix, character references, CDATA sections, comments (between elements
// and inside values), processing instructions inside values, the declaration
// with and without an encoding, a byte order mark. JSON: \u escapes, white space, member order.
// Element and member names and their order come from the one description (schemas/).

export interface XmlSpelling {
  xsiPrefix: string;
  /** Non-ASCII characters written as character references. */
  charRefs: boolean;
  /** Text written in CDATA sections where it can be. */
  cdata: boolean;
  comments: boolean;
  /** A comment and a processing instruction inside each value of two characters or more. */
  markupInValues: boolean;
  declaration: 'none' | 'plain' | 'utf-8';
  bom: boolean;
  indent: boolean;
}

export interface JsonSpelling {
  escapes: boolean;
  space: 'compact' | 'pretty' | 'tabs';
  reversed: boolean;
}

export const xmlSpelling: fc.Arbitrary<XmlSpelling> = fc.record({
  xsiPrefix: fc.constantFrom('xsi', 'i', 'p1'),
  charRefs: fc.boolean(),
  cdata: fc.boolean(),
  comments: fc.boolean(),
  markupInValues: fc.boolean(),
  declaration: fc.constantFrom('none', 'plain', 'utf-8'),
  bom: fc.boolean(),
  indent: fc.boolean(),
});

export const jsonSpelling: fc.Arbitrary<JsonSpelling> = fc.record({
  escapes: fc.boolean(),
  space: fc.constantFrom('compact', 'pretty', 'tabs'),
  reversed: fc.boolean(),
});

/** The plain XML spelling: what a shrunk failure falls back to when the spelling was not the cause. */
export const PLAIN_XML: XmlSpelling = {
  xsiPrefix: 'xsi',
  charRefs: false,
  cdata: false,
  comments: false,
  markupInValues: false,
  declaration: 'plain',
  bom: false,
  indent: false,
};

/** What a reader must skip inside a value: lxml's `.text` stops at it, a DOM's first text node ends at it. */
const MARKUP_IN_VALUE = '<!-- v --><?print-conformance v?>';

function escapeText(text: string, spelling: XmlSpelling): string {
  const characters = [...text];
  if (!spelling.markupInValues || characters.length < 2) return escapePiece(text, spelling);
  const head = characters[0] as string;
  return `${escapePiece(head, spelling)}${MARKUP_IN_VALUE}${escapePiece(characters.slice(1).join(''), spelling)}`;
}

function escapePiece(text: string, spelling: XmlSpelling): string {
  if (spelling.cdata && text !== '' && !text.includes(']]>')) return `<![CDATA[${text}]]>`;
  let out = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (spelling.charRefs)
    out = out.replace(/[^\x20-\x7e]/gu, (char) => `&#x${(char.codePointAt(0) as number).toString(16)};`);
  // Characters XML reads otherwise once parsed: a tab stays one only as a reference.
  return out.replace(/\t/g, '&#9;');
}

function xmlElement(
  name: string,
  value: unknown,
  schema: SchemaName | undefined,
  spelling: XmlSpelling,
  depth: number,
): string {
  const pad = spelling.indent ? `\n${'  '.repeat(depth)}` : '';
  const tag = xmlNameOf(name);
  if (value === null) return `${pad}<${tag} ${spelling.xsiPrefix}:nil="true" />`;
  if (typeof value !== 'object') return `${pad}<${tag}>${escapeText(String(value), spelling)}</${tag}>`;
  const comment = spelling.comments ? `<!-- ${tag} -->` : '';
  return `${pad}<${tag}>${comment}${members(value as Record<string, unknown>, schema, spelling, depth + 1)}${pad}</${tag}>`;
}

function members(
  model: Record<string, unknown>,
  schema: SchemaName | undefined,
  spelling: XmlSpelling,
  depth: number,
): string {
  const order = schema ? [...propertiesOf(schemas[schema]).keys()] : [];
  const names = [
    ...order.filter((name) => name in model),
    ...Object.keys(model).filter((name) => !order.includes(name)),
  ];
  const nested: Record<string, SchemaName> = { billing: 'billing', address: 'address' };
  return names.map((name) => xmlElement(name, model[name], nested[name], spelling, depth)).join('');
}

/** A resource as XML in the given spelling: root and names as the description writes them. */
export function writeXml(schema: SchemaName, model: Record<string, unknown>, spelling: XmlSpelling): string {
  const root = schemas[schema]['x-xml']?.root ?? xmlNameOf(schema);
  const declaration =
    spelling.declaration === 'none'
      ? ''
      : `<?xml version="1.0"${spelling.declaration === 'utf-8' ? ' encoding="utf-8"' : ''}?>${spelling.indent ? '\n' : ''}`;
  const comment = spelling.comments ? '<!-- written by a generated test -->' : '';
  const body = `${declaration}${comment}<${root} xmlns:${spelling.xsiPrefix}="${XSI_NAMESPACE}">${members(model, schema, spelling, 1)}${spelling.indent ? '\n' : ''}</${root}>`;
  return spelling.bom ? `\uFEFF${body}` : body;
}

function reorder(value: unknown, reversed: boolean): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const entries = Object.entries(value).map(([key, member]) => [key, reorder(member, reversed)] as const);
  return Object.fromEntries(reversed ? entries.reverse() : entries);
}

/** A resource as JSON in the given spelling. */
export function writeJson(model: Record<string, unknown>, spelling: JsonSpelling): string {
  const space = spelling.space === 'compact' ? undefined : spelling.space === 'pretty' ? 2 : '\t';
  const text = JSON.stringify(reorder(model, spelling.reversed), null, space);
  return spelling.escapes
    ? text.replace(/[^\x20-\x7e\n\t]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
}
