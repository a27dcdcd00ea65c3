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
import { isMaskedWhole } from './exchange.js';
import { KeptWith } from './kept-with.js';
import { describeSchemaError } from './schema-messages.js';
import { isXsiNil, type XmlElement } from './xml.js';

// Both forms of a resource are read into one JSON-shaped model (camelCase names), so that schema,
// echo and consistency checks are written once. The XML reading is guided by the JSON Schema: a
// property typed number is read from its xs:decimal text, a nil element becomes null.

const XS_DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** How an element without child elements is read under a schema; worked out once per schema. */
type LeafReading = 'number' | 'object' | 'text';
const leafReadings = new WeakMap<JsonSchema, LeafReading>();

function leafReadingOf(schema: JsonSchema | undefined): LeafReading {
  if (!schema) return 'text';
  let reading = leafReadings.get(schema);
  if (reading === undefined) {
    const types = typesOf(schema);
    reading =
      types.includes('number') && !types.includes('string') ? 'number' : types.includes('object') ? 'object' : 'text';
    leafReadings.set(schema, reading);
  }
  return reading;
}

const NO_PROPERTIES = new Map<string, JsonSchema>();

/** `skipped`: names of child elements left out (the XML-only nil elements under the root). */
function elementValue(element: XmlElement, schema: JsonSchema | undefined, skipped?: ReadonlySet<string>): unknown {
  if (isXsiNil(element)) return null;
  const children = skipped ? element.children.filter((child) => !skipped.has(child.local)) : element.children;
  if (children.length === 0) {
    const reading = leafReadingOf(schema);
    if (reading === 'number') {
      const text = element.text.trim();
      // A text that is no xs:decimal stays a string, so the schema reports it as text, not a number.
      return XS_DECIMAL.test(text) ? Number(text) : element.text;
    }
    if (reading === 'object' && element.text.trim() === '') return {};
    return element.text;
  }
  const props = schema ? propertiesOf(schema) : NO_PROPERTIES;
  const out: Record<string, unknown> = {};
  for (const child of children) {
    const key = jsonNameOf(child.local);
    const value = elementValue(child, props.get(key));
    if (key in out) {
      const existing = out[key];
      out[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
    } else out[key] = value;
  }
  return out;
}

const xmlOnlyElements = new Map<SchemaName, ReadonlySet<string>>();

/** The resource as a JSON-shaped value. XML-only nil elements (Tax) are left out: they are checked apart. */
export function modelOf(document: Document, schemaName: SchemaName): unknown {
  if (document.format === 'json') return document.value;
  // Read once per document: the rules and then coverage read the same one.
  const read = xmlModels.get(document);
  if (read && read.schema === schemaName) return read.model;
  const model = xmlModelOf(document, schemaName);
  xmlModels.set(document, { schema: schemaName, model });
  return model;
}

const xmlModels = new KeptWith<Document, { schema: SchemaName; model: unknown }>('XML model');

function xmlModelOf(document: Extract<Document, { format: 'xml' }>, schemaName: SchemaName): unknown {
  let xmlOnly = xmlOnlyElements.get(schemaName);
  if (!xmlOnly) {
    xmlOnly = new Set(xmlNilElementsOf(schemaName));
    xmlOnlyElements.set(schemaName, xmlOnly);
  }
  return elementValue(document.root, schemas[schemaName], xmlOnly);
}

export interface SchemaProblem {
  path: string;
  message: string;
}

/** XML paths of the pointers asked for: the same few for every exchange. Bounded, as traffic names them. */
const xmlPaths = new Map<string, string>();
const XML_PATHS_KEPT = 1024;

/** Paths as the body writes them: JSON pointer for JSON, element path for XML. */
export function displayPath(pointer: string, format: Document['format']): string {
  if (format === 'json') return pointer || '/';
  let path = xmlPaths.get(pointer);
  if (path === undefined) {
    path = pointer
      .split('/')
      .map((segment) => (/^\d+$/.test(segment) || segment === '' ? segment : xmlNameOf(segment)))
      .join('/');
    if (xmlPaths.size >= XML_PATHS_KEPT) xmlPaths.clear();
    xmlPaths.set(pointer, path);
  }
  return path;
}

/** The schema's failures on the model, each as a sentence naming the member as `format` writes it. */
/** `masked`: told when a problem was left out because its value is the recording's mask. */
export function schemaProblems(
  model: unknown,
  schemaName: SchemaName,
  format: Document['format'],
  masked?: () => void,
): SchemaProblem[] {
  const validate = validatorFor(schemaName);
  if (validate(model)) return [];
  const problems: SchemaProblem[] = [];
  for (const error of validate.errors ?? []) {
    // A member the recording masked whole (--redact Amount, Address) stands as the mask's text,
    // whatever it was: its type or shape is not known from it (see isMasked).
    const at = stringAt(model, error.instancePath);
    if (at !== undefined && isMaskedWhole(at)) {
      masked?.();
      continue;
    }
    const missing = error.keyword === 'required' ? `/${String(error.params.missingProperty)}` : '';
    problems.push({ path: `${error.instancePath}${missing}`, message: describeSchemaError(error, model, format) });
  }
  return problems;
}

/** Members of the model that the description does not name, as JSON pointers. */
export function extraMembers(
  model: unknown,
  schema: JsonSchema = {},
  found: string[] = [],
  trail: string[] = [],
): string[] {
  if (model === null || typeof model !== 'object' || Array.isArray(model)) return found;
  const props = propertiesOf(schema);
  for (const key in model) {
    const sub = props.get(key);
    trail.push(key);
    // The path is spelled only for a member that is found: nearly all of them are named.
    if (!sub) found.push(`/${trail.join('/')}`);
    else extraMembers((model as Record<string, unknown>)[key], sub, found, trail);
    trail.pop();
  }
  return found;
}

/** A member of an object of the model; undefined when the value is no object or lacks it. */
export function memberOf(value: unknown, name: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return (value as Record<string, unknown>)[name];
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
  for (const key of segments) here = memberOf(here, key);
  return typeof here === 'string' ? here : undefined;
}

export const ADDRESS_FIELDS = [...propertiesOf(schemas.address).keys()];
