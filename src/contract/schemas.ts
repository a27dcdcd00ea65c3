import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { PACKAGE_ROOT } from './package-root.js';

// The JSON Schemas in schemas/ are the one description of the resources. They are written as JSON
// is (camelCase); the XML view (PascalCase names, roots, nil elements) is derived from them here.

export type JsonSchema = {
  $id?: string;
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  'x-xml'?: { root?: string; nilElements?: string[] };
  [key: string]: unknown;
};

export const SCHEMA_FILES = ['address', 'billing', 'checkout-request', 'checkout', 'upload-result'] as const;
export type SchemaName = (typeof SCHEMA_FILES)[number];

const BASE_ID = 'https://print-conformance.dev/schemas/';

export const schemas: Record<SchemaName, JsonSchema> = Object.fromEntries(
  SCHEMA_FILES.map((name) => [
    name,
    JSON.parse(readFileSync(join(PACKAGE_ROOT, 'schemas', `${name}.json`), 'utf8')) as JsonSchema,
  ]),
) as Record<SchemaName, JsonSchema>;

const byId = new Map<string, JsonSchema>(Object.values(schemas).map((schema) => [schema.$id ?? '', schema]));

// Ajv counts minLength/maxLength in code points; the real service (.NET) counts UTF-16 code units.
// So string lengths that matter (ReturnUrl) are read from the schema and counted by the core itself.
// The schemas ship with the tool and a test holds them to the 2020-12 meta-schema, so they are not
// checked again at every start: compiling the meta-schema cost each command and worker ~45 ms.
export const AJV_OPTIONS = { allErrors: true, strict: true, strictRequired: false } as const;
const ajv = new Ajv2020({ ...AJV_OPTIONS, validateSchema: false });
ajv.addKeyword({ keyword: 'x-xml', schemaType: 'object' });
for (const schema of Object.values(schemas)) ajv.addSchema(schema);

const compiled = new Map<SchemaName, ValidateFunction>();
export function validatorFor(name: SchemaName): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    fn = ajv.getSchema(`${BASE_ID}${name}.json`);
    if (!fn) throw new Error(`schema ${name} is not loaded`);
    compiled.set(name, fn);
  }
  return fn;
}

export type SchemaError = ErrorObject;

/** Follows $ref and allOf so that a sub-schema's properties can be listed in one place. */
function flatten(schema: JsonSchema): JsonSchema[] {
  const out: JsonSchema[] = [schema];
  if (schema.$ref) {
    const target = byId.get(new URL(schema.$ref, BASE_ID).href);
    if (target) out.push(...flatten(target));
  }
  for (const part of schema.allOf ?? []) out.push(...flatten(part));
  return out;
}

const propertiesCache = new WeakMap<JsonSchema, Map<string, JsonSchema>>();
const typesCache = new WeakMap<JsonSchema, string[]>();

/** The named properties of a schema (following $ref/allOf), camelCase as JSON writes them. */
export function propertiesOf(schema: JsonSchema): Map<string, JsonSchema> {
  const cached = propertiesCache.get(schema);
  if (cached) return cached;
  const props = new Map<string, JsonSchema>();
  for (const part of flatten(schema)) {
    for (const [name, sub] of Object.entries(part.properties ?? {})) if (!props.has(name)) props.set(name, sub);
  }
  propertiesCache.set(schema, props);
  return props;
}

/** The JSON types a schema allows, following $ref/allOf. */
export function typesOf(schema: JsonSchema): string[] {
  const cached = typesCache.get(schema);
  if (cached) return cached;
  let types: string[] = [];
  for (const part of flatten(schema)) {
    if (part.type) {
      types = Array.isArray(part.type) ? part.type : [part.type];
      break;
    }
  }
  typesCache.set(schema, types);
  return types;
}

export function xmlRootOf(name: SchemaName): string {
  const root = schemas[name]['x-xml']?.root;
  if (!root) throw new Error(`schema ${name} names no XML root`);
  return root;
}

/** Elements present only in the XML form, always nil (the Tax of a checkout). */
export function xmlNilElementsOf(name: SchemaName): string[] {
  return schemas[name]['x-xml']?.nilElements ?? [];
}

/** JSON name → XML name: the description writes XML element names PascalCase. */
export function xmlNameOf(jsonName: string): string {
  return jsonName.charAt(0).toUpperCase() + jsonName.slice(1);
}

/** Names seen often enough to keep; a hostile document of endless new names stops adding here. */
const JSON_NAMES_KEPT = 1024;
const jsonNames = new Map<string, string>();

/** XML name → JSON name. Kept once made: a name built afresh must be hashed afresh as a key. */
export function jsonNameOf(xmlName: string): string {
  let name = jsonNames.get(xmlName);
  if (name === undefined) {
    name = xmlName.charAt(0).toLowerCase() + xmlName.slice(1);
    if (jsonNames.size < JSON_NAMES_KEPT) jsonNames.set(xmlName, name);
  }
  return name;
}
