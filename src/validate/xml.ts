import { XMLParser, XMLValidator } from 'fast-xml-parser';

// Namespace-aware XML reading on top of fast-xml-parser. Entities and DOCTYPE are never processed:
// a document that declares any is refused before parsing, so no expansion bomb or external entity
// can run. Prefixes are resolved to namespace URIs; rules compare namespaces, never prefix text.

export const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';
const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

export interface XmlAttribute {
  name: string;
  prefix?: string;
  local: string;
  namespace?: string;
  value: string;
}

export interface XmlElement {
  name: string;
  prefix?: string;
  local: string;
  namespace?: string;
  attributes: XmlAttribute[];
  children: XmlElement[];
  /** The element's own character data (CDATA included), entities decoded. */
  text: string;
}

export type XmlParseResult = { ok: true; root: XmlElement } | { ok: false; error: string };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: '#cdata',
  commentPropName: '#comment',
});

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the five predefined entities and character references; anything else is an error. */
function decodeReferences(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z_][\w.-]*);/g, (_, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10));
    const value = PREDEFINED[ref];
    if (value === undefined) throw new XmlError(`undeclared entity &${ref}; (entities are not expanded)`);
    return value;
  });
}

class XmlError extends Error {}

type Node = Record<string, unknown>;

function splitName(name: string): { prefix?: string; local: string } {
  const colon = name.indexOf(':');
  return colon < 0 ? { local: name } : { prefix: name.slice(0, colon), local: name.slice(colon + 1) };
}

function buildElement(name: string, node: Node, scope: Map<string, string>): XmlElement {
  const rawAttributes = (node[':@'] ?? {}) as Record<string, string>;
  const inner = new Map(scope);
  for (const [attr, value] of Object.entries(rawAttributes)) {
    if (attr === 'xmlns') inner.set('', decodeReferences(value));
    else if (attr.startsWith('xmlns:')) inner.set(attr.slice(6), decodeReferences(value));
  }
  const resolve = (prefix: string | undefined, isAttribute: boolean): string | undefined => {
    if (prefix === 'xml') return XML_NAMESPACE;
    if (prefix === undefined) return isAttribute ? undefined : inner.get('') || undefined;
    const ns = inner.get(prefix);
    if (ns === undefined) throw new XmlError(`prefix "${prefix}" is not bound to a namespace`);
    return ns;
  };
  const { prefix, local } = splitName(name);
  const attributes: XmlAttribute[] = [];
  for (const [attr, value] of Object.entries(rawAttributes)) {
    if (attr === 'xmlns' || attr.startsWith('xmlns:')) continue;
    const parts = splitName(attr);
    attributes.push({ name: attr, ...parts, namespace: resolve(parts.prefix, true), value: decodeReferences(value) });
  }
  const children: XmlElement[] = [];
  let text = '';
  for (const child of (node[name] ?? []) as Node[]) {
    const key = Object.keys(child).find((k) => k !== ':@');
    if (key === undefined || key === '#comment') continue;
    if (key === '#text') text += decodeReferences(String(child[key]));
    else if (key === '#cdata') {
      for (const part of child[key] as Node[]) text += String(part['#text'] ?? '');
    } else children.push(buildElement(key, child, inner));
  }
  return { name, prefix, local, namespace: resolve(prefix, false), attributes, children, text };
}

/** Parses an XML document into a namespace-resolved element tree, or says why it cannot. */
export function parseXml(text: string): XmlParseResult {
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    return { ok: false, error: 'DOCTYPE and entity declarations are not accepted' };
  }
  const checked = XMLValidator.validate(text);
  if (checked !== true) {
    return { ok: false, error: `${checked.err.msg} (line ${checked.err.line}, column ${checked.err.col})` };
  }
  try {
    const nodes = parser.parse(text) as Node[];
    const elements = nodes.filter((node) => {
      const key = Object.keys(node).find((k) => k !== ':@');
      return key !== undefined && !key.startsWith('#') && !key.startsWith('?');
    });
    if (elements.length !== 1) return { ok: false, error: `expected one root element, found ${elements.length}` };
    const [root] = elements as [Node];
    const name = Object.keys(root).find((k) => k !== ':@') as string;
    return { ok: true, root: buildElement(name, root, new Map()) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** True when the element carries nil="true" (or "1") in the XMLSchema-instance namespace. */
export function isXsiNil(element: XmlElement): boolean {
  return element.attributes.some(
    (attr) => attr.namespace === XSI_NAMESPACE && attr.local === 'nil' && ['true', '1'].includes(attr.value.trim()),
  );
}

/** Every element of the tree with its path of local names (root first). */
export function* walkElements(
  element: XmlElement,
  path: string[] = [],
): Generator<{ element: XmlElement; path: string[] }> {
  const here = [...path, element.local];
  yield { element, path: here };
  for (const child of element.children) yield* walkElements(child, here);
}
