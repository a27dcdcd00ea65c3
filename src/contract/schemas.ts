import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
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

/** The $id a schema is known by. */
export const schemaId = (name: SchemaName) => `${BASE_ID}${name}.json`;

const schemaTexts = SCHEMA_FILES.map((name) => readFileSync(join(PACKAGE_ROOT, 'schemas', `${name}.json`), 'utf8'));

export const schemas: Record<SchemaName, JsonSchema> = Object.fromEntries(
  SCHEMA_FILES.map((name, index) => [name, JSON.parse(schemaTexts[index] as string) as JsonSchema]),
) as Record<SchemaName, JsonSchema>;

/** A digest of the schema files as read: validators made from other schemas are not used. */
export const SCHEMAS_DIGEST = createHash('sha256').update(schemaTexts.join('\0')).digest('hex');

const byId = new Map<string, JsonSchema>(Object.values(schemas).map((schema) => [schema.$id ?? '', schema]));

// Ajv counts minLength/maxLength in code points; the real service (.NET) counts UTF-16 code units.
// So string lengths that matter (ReturnUrl) are read from the schema and counted by the core itself.
export const AJV_OPTIONS = { allErrors: true, strict: true, strictRequired: false } as const;

const requireHere = createRequire(import.meta.url);

/**
 * An Ajv instance holding every schema. The schemas ship with the tool and a test holds them to
 * the 2020-12 meta-schema, so they are not checked against it here: that cost ~45 ms a start.
 * With `source`, it keeps the code it compiles, for the build to write out.
 */
export function schemaCompiler(source = false): Ajv2020 {
  const { Ajv2020 } = requireHere('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ ...AJV_OPTIONS, validateSchema: false, ...(source ? { code: { source: true } } : {}) });
  ajv.addKeyword({ keyword: 'x-xml', schemaType: 'object' });
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return ajv;
}

/** The file the build writes the validators to, next to this module. */
export const PRECOMPILED_FILE = 'schema-validators.cjs';

type Precompiled = Partial<Record<SchemaName, ValidateFunction>> & { digest?: string };

/**
 * The validators the build wrote (compile-validators.ts), when they were made from these very
 * schemas. Loading them takes ~3 ms; loading Ajv and compiling takes ~60 ms, in every command and
 * every worker thread. Without them (running from source, schemas edited since the build, or a
 * damaged file), Ajv compiles the schemas here with the same options: the verdicts are the same,
 * only the start is slower. A file that cannot load must not cost every exchange its judgement.
 */
export function precompiled(file = `./${PRECOMPILED_FILE}`): Precompiled | undefined {
  try {
    const validators = requireHere(file) as Precompiled;
    return validators.digest === SCHEMAS_DIGEST ? validators : undefined;
  } catch {
    return undefined;
  }
}

/** null until the written validators were looked for; undefined when there are none to use. */
let built: Precompiled | undefined | null = null;
let ajv: Ajv2020 | undefined;
const compiled = new Map<SchemaName, ValidateFunction>();

export function validatorFor(name: SchemaName): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    if (built === null) built = precompiled();
    fn = built?.[name];
    if (!fn) {
      ajv ??= schemaCompiler();
      fn = ajv.getSchema(schemaId(name));
    }
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
