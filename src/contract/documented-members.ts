import { type JsonSchema, propertiesOf, type SchemaName, schemas, typesOf, xmlNilElementsOf } from './schemas.js';

// The members the description documents, as JSON pointers of the one description (camelCase):
// what coverage counts as seen or not. Objects and their members alike, depth first.

function walk(schema: JsonSchema, trail: string, out: string[]): void {
  for (const [name, sub] of propertiesOf(schema)) {
    const pointer = `${trail}/${name}`;
    out.push(pointer);
    if (typesOf(sub).includes('object')) walk(sub, pointer, out);
  }
}

const cache = new Map<string, readonly string[]>();

/** Every documented member of a resource; in XML also its nil elements (Tax). */
export function documentedMembers(name: SchemaName, format: 'json' | 'xml'): readonly string[] {
  const key = `${name} ${format}`;
  let members = cache.get(key);
  if (!members) {
    const out: string[] = [];
    walk(schemas[name], '', out);
    if (format === 'xml')
      for (const element of xmlNilElementsOf(name)) out.push(`/${element.charAt(0).toLowerCase()}${element.slice(1)}`);
    members = out;
    cache.set(key, members);
  }
  return members;
}
