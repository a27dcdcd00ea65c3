import { ERROR_BODY, ERROR_ROOT } from './error-body.js';
import { XSI_NAMESPACE } from './namespaces.js';
import { ANSWER_EXTRAS } from './real-service.js';
import { ruleById } from './rules.js';
import {
  type JsonSchema,
  jsonNameOf,
  SCHEMA_FILES,
  type SchemaName,
  schemaId,
  schemas,
  typesOf,
  xmlNameOf,
  xmlNilElementsOf,
} from './schemas.js';

// The OpenAPI components, derived from the JSON Schemas in schemas/. Each root resource becomes one
// self-contained schema: $ref and allOf are merged in (Specmatic refuses an allOf beside required,
// and one object reads plainer in every tool), every property and root gets the XML Object name the
// rules use (xmlNameOf: PascalCase), and answers get the members the real service adds.

export const XSI_PREFIX = 'xsi';

/** Keywords of the schema files that no OpenAPI component carries: identity, x-xml, and what is merged. */
const DROPPED = new Set(['$schema', '$id', 'x-xml', '$ref', 'allOf']);

function schemaOfRef(ref: string): JsonSchema {
  const target = new URL(ref, schemaId('address')).href;
  const name = SCHEMA_FILES.find((file) => schemaId(file) === target);
  if (!name) throw new Error(`schema reference ${ref} names no schema file`);
  return schemas[name];
}

/** One object of a schema and everything its $ref and allOf bring in; its own keywords come first. */
function flattened(schema: JsonSchema): JsonSchema {
  const parts = [schema];
  if (schema.$ref) parts.push(flattened(schemaOfRef(schema.$ref)));
  for (const part of schema.allOf ?? []) parts.push(flattened(part));
  const out: JsonSchema = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (DROPPED.has(key)) continue;
      if (key === 'properties') {
        const own = out.properties ?? {};
        const added = Object.entries(value as Record<string, JsonSchema>).filter(([name]) => !(name in own));
        out.properties = { ...own, ...Object.fromEntries(added) };
      } else if (key === 'required') {
        out.required = [...new Set([...(out.required ?? []), ...(value as string[])])];
      } else if (!(key in out)) {
        out[key] = value;
      }
    }
  }
  return out;
}

type Extras = Record<string, Record<string, JsonSchema>>;

/** A schema as a component: flattened, XML names on it and on every property, extras added by path. */
function xmlNamed(schema: JsonSchema, name: string, extras: Extras = {}, path = ''): JsonSchema {
  const out = flattened(schema);
  const members = { ...out.properties, ...extras[path] };
  if (Object.keys(members).length > 0) {
    out.properties = Object.fromEntries(
      Object.entries(members).map(([key, sub]) => [
        key,
        xmlNamed(sub, xmlNameOf(key), extras, path ? `${path}/${key}` : key),
      ]),
    );
  }
  // A list is written as XmlSerializer writes one: a wrapper element named after the member, one
  // element per item named by the item's own XML name.
  out.xml = typesOf(out).includes('array') ? { name, wrapped: true } : { name };
  return out;
}

/**
 * An element present only in the XML form, always nil. OpenAPI 3.1 leaves it to each tool how (and
 * whether) a null is written in XML, so a bare `type: 'null'` would not say `xsi:nil`. The element is
 * described as it stands on the wire instead: empty, carrying the nil attribute, whose value reads as
 * null. The attribute's XML Object gives the prefix but no namespace: OpenAPI 3.1 cannot declare a
 * namespace binding apart from the node it names, the binding stands on the root (xmlns:xsi, as
 * XmlSerializer writes it), and tools that read a namespace on an attribute (openapi-sampler 1.7)
 * write it as a child element. The namespace is stated in the description, and the rules count it,
 * not the prefix.
 */
function nilElement(name: string): JsonSchema {
  return {
    type: ['object', 'null'],
    description: `Present only in XML, always nil: <${name} ${XSI_PREFIX}:nil="true" />. ${ruleById('checkout.xml.tax-nil').description}`,
    properties: {
      nil: {
        type: 'string',
        const: 'true',
        description: `The nil attribute of the namespace ${XSI_NAMESPACE} (the prefix is the document's choice).`,
        xml: { name: 'nil', prefix: XSI_PREFIX, attribute: true },
      },
    },
    required: ['nil'],
    additionalProperties: false,
    xml: { name },
  };
}

const componentName = (file: SchemaName) => file.replace(/(^|-)(\w)/g, (_, _dash, c: string) => c.toUpperCase());

/** The resources that stand as documents of their own: those the XML view gives a root element. */
export const ROOT_FILES = SCHEMA_FILES.filter((file) => schemas[file]['x-xml']?.root);

/** Component names of a root resource: one for JSON, and one for XML where the XML form differs. */
export function componentsOf(file: SchemaName): { json: string; xml: string } {
  const json = componentName(file);
  return { json, xml: xmlNilElementsOf(file).length > 0 ? `${json}Xml` : json };
}

export const ERROR_COMPONENT = ERROR_ROOT;

export function componentSchemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const file of ROOT_FILES) {
    const root = schemas[file]['x-xml']?.root as string;
    const named = xmlNamed(schemas[file], root, ANSWER_EXTRAS[file]);
    const nil = xmlNilElementsOf(file);
    const { json, xml } = componentsOf(file);
    if (nil.length === 0) {
      out[json] = named;
      continue;
    }
    out[json] = {
      ...named,
      description: `${named.description} As JSON. ${ruleById('checkout.json.no-tax').description}`,
      // The forbidden members are named under properties too, as linters (Redocly) want every
      // required member defined; `{}` takes any value, so the schema still forbids them all.
      not: { required: nil.map(jsonNameOf), properties: Object.fromEntries(nil.map((n) => [jsonNameOf(n), {}])) },
    };
    out[xml] = {
      ...named,
      description: `${named.description} As XML: the same members, plus ${nil.map((n) => `<${n}>`).join(', ')} that only the XML form carries.`,
      properties: withNilSecond(named.properties ?? {}, nil),
    };
  }
  out[ERROR_COMPONENT] = xmlNamed(ERROR_BODY, ERROR_ROOT);
  for (const file of REQUEST_FILES) {
    const { json } = componentsOf(file);
    if (out[json]) out[json] = nullableStrings(out[json]);
  }
  return out;
}

/**
 * The members with the nil elements placed second, where XmlSerializer writes them (after Amount,
 * as the real service's answers and the examples stand): tools that compare XML element order
 * (Specmatic) read the properties' order as the document's.
 */
function withNilSecond(properties: Record<string, JsonSchema>, nil: string[]): Record<string, JsonSchema> {
  const [first, ...rest] = Object.entries(properties);
  const nils = nil.map((name) => [jsonNameOf(name), nilElement(name)] as const);
  return Object.fromEntries(first ? [first, ...nils, ...rest] : nils);
}

/** Request bodies: the service binds a null member as an absent one, so a client may send null. */
const REQUEST_FILES: readonly SchemaName[] = ['checkout-request'];

/** A request schema whose every string, at every depth, may also be null. */
function nullableStrings(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (out.type === 'string') out.type = ['string', 'null'];
  if (out.properties) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([key, sub]) => [key, nullableStrings(sub as JsonSchema)]),
    );
  }
  return out;
}
