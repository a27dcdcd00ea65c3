import { type SchemaError, xmlNameOf } from '../contract/schemas.js';
import type { BodyFormat } from './document.js';

// A schema failure as a sentence a person reads: the member named as the body writes it
// (`billing.address.city` in JSON, `Billing/Address/City` in XML), what it is and what was expected.
// Ajv's own messages ("must have required property 'paymentUrl'") name neither. These are built
// only for failures, so the model is walked again here rather than asking Ajv to carry the data.

/** How long a quoted value may be before it is cut. */
const VALUE_PREVIEW = 40;

/** The segments of a JSON pointer, unescaped. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function child(value: unknown, segment: string): unknown {
  if (Array.isArray(value)) return /^\d+$/.test(segment) ? value[Number(segment)] : undefined;
  if (value !== null && typeof value === 'object') return (value as Record<string, unknown>)[segment];
  return undefined;
}

/** The value at a pointer of the model; undefined when absent. */
export function valueAt(model: unknown, pointer: string): unknown {
  let here = model;
  for (const segment of pointerSegments(pointer)) here = child(here, segment);
  return here;
}

/**
 * A member's name as the body writes it. Array items are counted as each form counts them:
 * `items[0]` in JSON, `Item[1]` in XML (repeated elements, counted from one as XPath does).
 */
export function memberName(model: unknown, pointer: string, format: BodyFormat): string {
  let name = '';
  let here = model;
  for (const segment of pointerSegments(pointer)) {
    if (Array.isArray(here) && /^\d+$/.test(segment)) {
      name += format === 'json' ? `[${segment}]` : `[${Number(segment) + 1}]`;
    } else if (format === 'json') {
      name += name === '' ? segment : `.${segment}`;
    } else {
      name += name === '' ? xmlNameOf(segment) : `/${xmlNameOf(segment)}`;
    }
    here = child(here, segment);
  }
  return name;
}

function quoted(text: string): string {
  const cut = text.length > VALUE_PREVIEW ? `${text.slice(0, VALUE_PREVIEW)}…` : text;
  return JSON.stringify(cut);
}

/** What a value is, in the words of its form: "a string ("12")", "text ("12a")", "nil"… */
export function describeValue(value: unknown, format: BodyFormat): string {
  if (value === undefined) return 'absent';
  if (value === null) return format === 'json' ? 'null' : 'nil';
  if (typeof value === 'string') {
    if (format === 'xml') return value.trim() === '' ? 'empty' : `text (${quoted(value)})`;
    return `a string (${quoted(value)})`;
  }
  if (typeof value === 'number') return `a number (${value})`;
  if (typeof value === 'boolean') return `${format === 'json' ? 'a boolean' : 'text'} (${value})`;
  if (Array.isArray(value)) {
    return format === 'json' ? `an array of ${value.length}` : `repeated (${value.length} elements)`;
  }
  return format === 'json' ? 'an object' : 'an element with child elements';
}

const EXPECTED_JSON: Record<string, string> = {
  string: 'a string',
  number: 'a decimal number',
  integer: 'a whole number',
  boolean: 'true or false',
  null: 'null',
  object: 'an object',
  array: 'an array',
};

const EXPECTED_XML: Record<string, string> = {
  ...EXPECTED_JSON,
  string: 'text',
  null: 'nil',
  object: 'an element with child elements',
  array: 'repeated elements',
};

function expectedTypes(types: unknown, format: BodyFormat): string {
  const list = (Array.isArray(types) ? types : [types]).map(String);
  const words = format === 'json' ? EXPECTED_JSON : EXPECTED_XML;
  return list.map((type) => words[type] ?? type).join(' or ');
}

const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'date and time (RFC 3339)',
  date: 'date (RFC 3339 full-date)',
  time: 'time (RFC 3339)',
  duration: 'duration (ISO 8601)',
  email: 'e-mail address',
  hostname: 'host name',
  ipv4: 'IPv4 address',
  ipv6: 'IPv6 address',
  uri: 'absolute URI',
  'uri-reference': 'URI reference',
  uuid: 'UUID',
  regex: 'regular expression',
};

/** A value shown after "is": strings quoted, others as JSON writes them. */
function shown(value: unknown): string {
  if (typeof value === 'string') return quoted(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > VALUE_PREVIEW ? `${text.slice(0, VALUE_PREVIEW)}…` : text;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The body as a whole, when the failure is at its root. */
function rootName(format: BodyFormat): string {
  return format === 'json' ? 'the body' : 'the root element';
}

function joined(parent: string, name: string, format: BodyFormat): string {
  const own = format === 'json' ? name : xmlNameOf(name);
  if (parent === '') return `\`${own}\``;
  return `\`${parent}${format === 'json' ? '.' : '/'}${own}\``;
}

/** One Ajv error as a sentence, for the body it was found in. */
export function describeSchemaError(error: SchemaError, model: unknown, format: BodyFormat): string {
  const pointer = error.instancePath;
  const parent = memberName(model, pointer, format);
  let subject = parent === '' ? rootName(format) : `\`${parent}\``;
  let value = valueAt(model, pointer);
  // Under propertyNames, the failing value is a member's name, not the member.
  if (error.propertyName !== undefined) {
    subject = `the name of the member ${joined(parent, error.propertyName, format)}`;
    value = error.propertyName;
  }
  const params = error.params as Record<string, unknown>;
  const length = typeof value === 'string' ? [...value].length : 0;
  switch (error.keyword) {
    case 'required':
      return `${joined(parent, String(params.missingProperty), format)} is missing`;
    case 'dependentRequired':
    case 'dependencies':
      return `${joined(parent, String(params.missingProperty), format)} is missing (it must come with ${joined(parent, String(params.property), format)})`;
    case 'type':
      return `${subject} is ${describeValue(value, format)}, expected ${expectedTypes(params.type, format)}`;
    case 'minLength':
      return `${subject} has ${plural(length, 'character')}${length > 0 ? ` (${quoted(String(value))})` : ''}, expected at least ${params.limit}`;
    case 'maxLength':
      return `${subject} has ${plural(length, 'character')}, expected at most ${params.limit}`;
    case 'pattern':
      return `${subject} (${shown(value)}) does not match the pattern /${params.pattern}/`;
    case 'format':
      return `${subject} (${shown(value)}) is not a valid ${FORMAT_WORDS[String(params.format)] ?? String(params.format)}`;
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(shown).join(', ');
      return `${subject} is ${shown(value)}, expected one of ${allowed}`;
    }
    case 'const':
      return `${subject} is ${shown(value)}, expected ${shown(params.allowedValue)}`;
    case 'minimum':
      return `${subject} is ${shown(value)}, expected at least ${params.limit}`;
    case 'maximum':
      return `${subject} is ${shown(value)}, expected at most ${params.limit}`;
    case 'exclusiveMinimum':
      return `${subject} is ${shown(value)}, expected more than ${params.limit}`;
    case 'exclusiveMaximum':
      return `${subject} is ${shown(value)}, expected less than ${params.limit}`;
    case 'multipleOf':
      return `${subject} is ${shown(value)}, expected a multiple of ${params.multipleOf}`;
    case 'additionalProperties':
      return `${joined(parent, String(params.additionalProperty), format)} is not allowed here`;
    case 'unevaluatedProperties':
      return `${joined(parent, String(params.unevaluatedProperty), format)} is not allowed here`;
    case 'propertyNames':
      return `${subject} has a member named ${quoted(String(params.propertyName))}, a name that is not allowed`;
    case 'minProperties':
      return `${subject} has ${plural(Object.keys(value ?? {}).length, 'member')}, expected at least ${params.limit}`;
    case 'maxProperties':
      return `${subject} has ${plural(Object.keys(value ?? {}).length, 'member')}, expected at most ${params.limit}`;
    case 'minItems':
      return `${subject} has ${plural(Array.isArray(value) ? value.length : 0, 'item')}, expected at least ${params.limit}`;
    case 'maxItems':
    case 'items':
    case 'unevaluatedItems':
      return `${subject} has ${plural(Array.isArray(value) ? value.length : 0, 'item')}, expected at most ${params.limit}`;
    case 'uniqueItems':
      return `${subject} has the same item twice (items ${params.j} and ${params.i})`;
    case 'contains':
      return `${subject} has no item of the kind expected`;
    case 'anyOf':
      return `${subject} (${describeValue(value, format)}) matches none of the allowed forms`;
    case 'oneOf':
      return Array.isArray(params.passingSchemas)
        ? `${subject} matches more than one of the allowed forms, expected exactly one`
        : `${subject} (${describeValue(value, format)}) matches none of the allowed forms`;
    case 'not':
      return `${subject} (${describeValue(value, format)}) is of a form that is not allowed`;
    case 'if':
      return `${subject} does not meet the conditions its "${String(params.failingKeyword)}" branch sets`;
    case 'false schema':
      return `${subject} is not allowed here`;
    default:
      return `${subject} ${error.message ?? `fails the "${error.keyword}" check`}`;
  }
}
