import { createRequire } from 'node:module';
import type { SaxesTagNS } from 'saxes';
import { XSI_NAMESPACE } from '../contract/namespaces.js';
import { withoutBom } from './exchange.js';

// saxes is CommonJS. Imported as ESM, Node would scan its 74 KB source for names to export, in
// every thread that judges (a scan hot enough to be optimised each time); required, it is not.
const { SaxesParser } = createRequire(import.meta.url)('saxes') as typeof import('saxes');

// Namespace-aware XML reading with saxes: one strict, streaming pass that resolves every prefix to
// its namespace, so rules compare namespaces, never prefix text. A document that declares a DOCTYPE
// or entities is refused before parsing, so no expansion bomb or external entity can ever run;
// saxes itself knows only the predefined entities and character references.

export { XSI_NAMESPACE };

const XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/';

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

function elementOf(tag: SaxesTagNS): XmlElement {
  const attributes: XmlAttribute[] = [];
  // Most elements carry no attribute at all: no array is made for them.
  for (const key in tag.attributes) {
    const attr = tag.attributes[key] as SaxesTagNS['attributes'][string];
    if (attr.uri === XMLNS_NAMESPACE || attr.name === 'xmlns') continue;
    const attribute: XmlAttribute = { name: attr.name, local: attr.local, value: attr.value };
    if (attr.prefix) attribute.prefix = attr.prefix;
    if (attr.uri) attribute.namespace = attr.uri;
    attributes.push(attribute);
  }
  const element: XmlElement = { name: tag.name, local: tag.local, attributes, children: [], text: '' };
  if (tag.prefix) element.prefix = tag.prefix;
  if (tag.uri) element.namespace = tag.uri;
  return element;
}

/** No document of the interface nests a tenth as deep; deeper ones are not read. */
export const MAX_DEPTH = 64;
export const TOO_DEEP = `nested deeper than ${MAX_DEPTH} levels; not read`;

/** A saxes parser that builds element trees, one document after another. */
class TreeReader {
  private readonly parser = new SaxesParser({ xmlns: true, position: true });
  private stack: XmlElement[] = [];
  private root: XmlElement | undefined;

  constructor() {
    this.parser.on('opentag', (tag) => {
      // The rules walk the tree recursively; a hostile depth must end here, not in a stack overflow.
      if (this.stack.length >= MAX_DEPTH) throw new Error(TOO_DEEP);
      const element = elementOf(tag);
      const parent = this.stack.at(-1);
      if (parent) parent.children.push(element);
      else this.root = element;
      this.stack.push(element);
    });
    this.parser.on('closetag', () => {
      this.stack.pop();
    });
    const addText = (data: string) => {
      const current = this.stack.at(-1);
      if (current) current.text += data;
    };
    this.parser.on('text', addText);
    this.parser.on('cdata', addText);
  }

  /** The document's root element; throws saxes' error for a document that is not well-formed. */
  read(text: string): XmlElement | undefined {
    this.stack = [];
    this.root = undefined;
    // close() checks the end of the document and resets the parser for the next one.
    this.parser.write(text).close();
    return this.root;
  }
}

// Making a parser costs about a fifth of reading a small document, so one is reused. A document
// that fails leaves its parser half-way: that one is dropped and the next document gets a new one.
let idleReader: TreeReader | undefined;

const DECLARATION = /<!(?:DOCTYPE|ENTITY)/i;

/** Parses an XML document into a namespace-resolved element tree, or says why it cannot. */
export function parseXml(text: string): XmlParseResult {
  if (text.includes('<!') && DECLARATION.test(text)) {
    return { ok: false, error: 'DOCTYPE and entity declarations are not accepted' };
  }
  const reader = idleReader ?? new TreeReader();
  idleReader = undefined;
  let root: XmlElement | undefined;
  try {
    root = reader.read(withoutBom(text));
  } catch (error) {
    // saxes says "line:column: message."; reports say it the other way round.
    const raw = (error as Error).message;
    if (raw === TOO_DEEP) return { ok: false, error: TOO_DEEP };
    const located = /^(\d+):(\d+): (.*?)\.?$/s.exec(raw);
    const message = (located?.[3] ?? raw).replace('undefined entity', 'undeclared entity (entities are not expanded)');
    return { ok: false, error: located ? `${message} (line ${located[1]}, column ${located[2]})` : message };
  }
  idleReader = reader;
  if (!root) return { ok: false, error: 'no root element' };
  return { ok: true, root };
}

/** True when the element carries nil="true" (or "1") in the XMLSchema-instance namespace. */
export function isXsiNil(element: XmlElement): boolean {
  for (const attr of element.attributes) {
    if (attr.namespace !== XSI_NAMESPACE || attr.local !== 'nil') continue;
    const value = attr.value.trim();
    if (value === 'true' || value === '1') return true;
  }
  return false;
}

/** Why a root element is not `name` in no namespace, with every element below it in none too. */
export function rootProblems(root: XmlElement, name: string): string[] {
  const problems: string[] = [];
  const inNamespace = (element: XmlElement) => (element.namespace ? ` in namespace ${element.namespace}` : '');
  if (root.local !== name || root.namespace) {
    problems.push(`root element is <${root.name}>${inNamespace(root)}, expected <${name}> in no namespace`);
  }
  // The first few elements below the root that are in a namespace: one is enough to show it.
  const found: string[] = [];
  const walk = (element: XmlElement, trail: string) => {
    for (const child of element.children) {
      const path = `${trail}/${child.local}`;
      if (child.namespace && found.length < 3) found.push(`<${child.name}> at ${path}${inNamespace(child)}`);
      walk(child, path);
    }
  };
  // Below a root in a namespace, a default one reaches every element: the root says it once.
  if (!root.namespace) walk(root, '');
  if (found.length > 0)
    problems.push(`has elements in a namespace, where every element is in none: ${found.join(', ')}`);
  return problems;
}
