import {
  type JsonSchema,
  jsonNameOf,
  propertiesOf,
  type SchemaName,
  schemas,
  typesOf,
  validatorFor,
  xmlNameOf,
  xmlNilElementsOf,
} from '../contract/schemas.js';
import type { Document } from './document.js';
import { isXsiNil, type XmlElement } from './xml.js';

// Both forms of a resource are read into one JSON-shaped model (camelCase names), so that schema,
// echo and consistency checks are written once. The XML reading is guided by the JSON Schema: a
// property typed number is read from its xs:decimal text, a nil element becomes null.

const XS_DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function elementValue(element: XmlElement, schema: JsonSchema | undefined): unknown {
  if (isXsiNil(element)) return null;
  if (element.children.length === 0) {
    const types = schema ? typesOf(schema) : [];
    if (types.includes('number') && !types.includes('string')) {
      const text = element.text.trim();
      // A text that is no xs:decimal stays a string, so the schema reports it as "must be number".
      return XS_DECIMAL.test(text) ? Number(text) : element.text;
    }
    if (types.includes('object') && element.text.trim() === '') return {};
    return element.text;
  }
  const props = schema ? propertiesOf(schema) : new Map<string, JsonSchema>();
  const out: Record<string, unknown> = {};
  for (const child of element.children) {
    const key = jsonNameOf(child.local);
    const value = elementValue(child, props.get(key));
    if (key in out) {
      const existing = out[key];
      out[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
    } else out[key] = value;
  }
  return out;
}

/** The resource as a JSON-shaped value. XML-only nil elements (Tax) are left out: they are checked apart. */
export function modelOf(document: Document, schemaName: SchemaName): unknown {
  if (document.format === 'json') return document.value;
  const schema = schemas[schemaName];
  const xmlOnly = new Set(xmlNilElementsOf(schemaName));
  const root: XmlElement = {
    ...document.root,
    children: document.root.children.filter((child) => !xmlOnly.has(child.local)),
  };
  return elementValue(root, schema);
}

export interface SchemaProblem {
  path: string;
  message: string;
}

/** Paths as the body writes them: JSON pointer for JSON, element path for XML. */
export function displayPath(pointer: string, format: Document['format']): string {
  if (format === 'json') return pointer || '/';
  return pointer
    .split('/')
    .map((segment) => (/^\d+$/.test(segment) || segment === '' ? segment : xmlNameOf(segment)))
    .join('/');
}

export function schemaProblems(model: unknown, schemaName: SchemaName): SchemaProblem[] {
  const validate = validatorFor(schemaName);
  if (validate(model)) return [];
  return (validate.errors ?? []).map((error) => {
    const missing = error.keyword === 'required' ? `/${String(error.params.missingProperty)}` : '';
    return { path: `${error.instancePath}${missing}`, message: error.message ?? error.keyword };
  });
}

/** Members of the model that the description does not name, as JSON pointers. */
export function extraMembers(model: unknown, schema: JsonSchema = {}, path = '', found: string[] = []): string[] {
  if (model === null || typeof model !== 'object' || Array.isArray(model)) return found;
  const props = propertiesOf(schema);
  for (const key in model) {
    const sub = props.get(key);
    if (!sub) found.push(`${path}/${key}`);
    else extraMembers((model as Record<string, unknown>)[key], sub, `${path}/${key}`, found);
  }
  return found;
}

const pointerSegments = new Map<string, string[]>();

/** Reads a string at a JSON pointer of the model; undefined when absent or not a string. */
export function stringAt(model: unknown, pointer: string): string | undefined {
  let segments = pointerSegments.get(pointer);
  if (!segments) {
    segments = pointer.split('/').filter(Boolean);
    pointerSegments.set(pointer, segments);
  }
  let here: unknown = model;
  for (const key of segments) {
    if (here === null || typeof here !== 'object' || Array.isArray(here)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return typeof here === 'string' ? here : undefined;
}

export const ADDRESS_FIELDS = [...propertiesOf(schemas.address).keys()];
