import { XSI_NAMESPACE } from './namespaces.js';
import { propertiesOf, type SchemaName, schemas, xmlNameOf, xmlNilElementsOf, xmlRootOf } from './schemas.js';

// Writes a resource as .NET's XmlSerializer does: declaration, the xsd/xsi namespaces on the root,
// two-space indentation, PascalCase names derived from the JSON Schema, nil elements as
// <Tax xsi:nil="true" />. Element order follows the schema; members it does not name come after.

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);
}

/** Characters XML 1.0 cannot carry at all, not even as references. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are exactly what is refused
export const NOT_XML_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function orderedEntries(value: Record<string, unknown>, order: string[]): [string, unknown][] {
  const known = order.filter((key) => key in value).map((key) => [key, value[key]] as [string, unknown]);
  const rest = Object.entries(value).filter(([key]) => !order.includes(key));
  return [...known, ...rest];
}

function writeElement(
  name: string,
  value: unknown,
  indent: string,
  order: Map<string, string[]>,
  path: string,
  nilPrefix: string,
): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object' && !Array.isArray(value)) {
    const entries = orderedEntries(value as Record<string, unknown>, order.get(path) ?? []);
    const inner = entries
      .map(([key, child]) => writeElement(xmlNameOf(key), child, `${indent}  `, order, `${path}/${key}`, nilPrefix))
      .join('');
    return inner ? `${indent}<${name}>\n${inner}${indent}</${name}>\n` : `${indent}<${name} />\n`;
  }
  const text = typeof value === 'number' ? formatDecimal(value) : String(value);
  return `${indent}<${name}>${escapeXml(text)}</${name}>\n`;
}

/** xs:decimal as .NET writes a decimal with cents: 22.49, 100.00. */
export function formatDecimal(value: number): string {
  return Number.isInteger(value * 100) ? value.toFixed(2) : String(value);
}

function propertyOrder(schemaName: SchemaName): Map<string, string[]> {
  const order = new Map<string, string[]>();
  const visit = (schema: Parameters<typeof propertiesOf>[0], path: string) => {
    const props = propertiesOf(schema);
    order.set(path, [...props.keys()]);
    for (const [key, sub] of props) visit(sub, `${path}/${key}`);
  };
  visit(schemas[schemaName], '');
  return order;
}

export function writeResourceXml(schemaName: SchemaName, model: Record<string, unknown>, nilPrefix = 'xsi'): string {
  const root = xmlRootOf(schemaName);
  const order = propertyOrder(schemaName);
  const nsDeclarations =
    nilPrefix === 'xsi'
      ? `xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="${XSI_NAMESPACE}"`
      : `xmlns:${nilPrefix}="${XSI_NAMESPACE}"`;
  const entries = orderedEntries(model, order.get('') ?? []);
  let inner = '';
  for (const [key, value] of entries) {
    inner += writeElement(xmlNameOf(key), value, '  ', order, `/${key}`, nilPrefix);
    // Nil elements that only the XML form has stand right after the amount they belong with.
    if (key === 'amount')
      for (const nil of xmlNilElementsOf(schemaName)) inner += `  <${nil} ${nilPrefix}:nil="true" />\n`;
  }
  if (!('amount' in model))
    for (const nil of xmlNilElementsOf(schemaName)) inner += `  <${nil} ${nilPrefix}:nil="true" />\n`;
  return `<?xml version="1.0"?>\n<${root} ${nsDeclarations}>\n${inner}</${root}>`;
}

/** An error body in XML: message plus hints, as the real service's error bodies carry. */
export function writeErrorXml(message: string, hints: string[]): string {
  const hintXml = hints.map((hint) => `    <Hint>${escapeXml(hint)}</Hint>\n`).join('');
  return `<?xml version="1.0"?>\n<Error>\n  <Message>${escapeXml(message)}</Message>\n${hintXml ? `  <Hints>\n${hintXml}  </Hints>\n` : ''}</Error>`;
}
