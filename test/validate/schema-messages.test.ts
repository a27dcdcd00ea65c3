import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { validateExchange } from '../../src/validate/index.js';
import { describeSchemaError, memberName } from '../../src/validate/schema-messages.js';
import {
  checkoutGet,
  checkoutPost,
  checkoutResponseJson,
  checkoutResponseXml,
  PDF_BYTES,
  uploadPost,
  XML_TYPE,
} from '../helpers/exchanges.js';

const jsonResponse = (change: (body: Record<string, any>) => void) => {
  const body = JSON.parse(checkoutResponseJson());
  change(body);
  return JSON.stringify(body);
};

const schemaFailures = (exchange: Parameters<typeof validateExchange>[0]) =>
  validateExchange(exchange)
    .filter((v) => v.rule === 'checkout.response.schema' || v.rule === 'checkout.get.shape')
    .map((v) => ({ message: v.message, path: v.path }));

describe('schema failures of a checkout, in plain words', () => {
  it('names a missing JSON member, keeping the pointer as its path', () => {
    const exchange = checkoutGet(
      'json',
      jsonResponse((b) => delete b.paymentUrl),
    );
    expect(schemaFailures(exchange)).toEqual([{ message: '`paymentUrl` is missing', path: '/paymentUrl' }]);
  });

  it('says what a wrongly typed JSON member is and what was expected', () => {
    const exchange = checkoutPost(
      'json',
      undefined,
      jsonResponse((b) => {
        b.amount = '12';
        b.billing.address.city = 31;
      }),
    );
    expect(schemaFailures(exchange)).toEqual([
      { message: '`amount` is a string ("12"), expected a decimal number', path: '/amount' },
      { message: '`billing.address.city` is a number (31), expected a string', path: '/billing/address/city' },
    ]);
  });

  it('names XML members by their element path', () => {
    const xml = checkoutResponseXml()
      .replace('<Amount>22.49</Amount>', '<Amount>22,49</Amount>')
      .replace(/<Status>Open<\/Status>/, '')
      .replace(/<City>[^<]*<\/City>/, '<City><Name>Delft</Name></City>');
    expect(schemaFailures(checkoutPost('xml', undefined, xml))).toEqual([
      { message: '`Status` is missing', path: '/Status' },
      { message: '`Amount` is text ("22,49"), expected a decimal number', path: '/Amount' },
      {
        message: '`Billing/Address/City` is an element with child elements, expected text',
        path: '/Billing/Address/City',
      },
    ]);
  });

  it('names a nil or null where an object is expected', () => {
    expect(
      schemaFailures(
        checkoutGet(
          'json',
          jsonResponse((b) => (b.billing = null)),
        ),
      )[0]?.message,
    ).toBe('`billing` is null, expected an object');
  });
});

describe('schema failures of an upload result, in plain words', () => {
  it('names the member in either form', () => {
    const json = uploadPost('application/pdf', PDF_BYTES, JSON.stringify({ fileName: 7 }));
    const xml = uploadPost(
      'application/pdf',
      PDF_BYTES,
      '<UploadResult><FileName>x</FileName></UploadResult>',
      200,
      XML_TYPE,
    );
    const messages = (exchange: typeof json) =>
      validateExchange(exchange)
        .filter((v) => v.rule === 'upload.response.schema')
        .map((v) => v.message);
    expect(messages(json)).toEqual(['`fileType` is missing', '`fileName` is a number (7), expected a string']);
    expect(messages(xml)).toEqual(['`FileType` is missing']);
  });
});

const ajv = new Ajv2020({ allErrors: true, strict: false });

/** The sentences a schema's failures make on a value. */
function sentences(schema: object, value: unknown, format: 'json' | 'xml' = 'json'): string[] {
  const validate = ajv.compile(schema);
  expect(validate(value)).toBe(false);
  return (validate.errors ?? []).map((error) => describeSchemaError(error, value, format));
}

describe('every keyword as a sentence', () => {
  const holder = (schema: object) => ({ type: 'object', properties: { item: schema } });

  it('covers lengths, patterns, enums, consts and formats', () => {
    expect(sentences(holder({ minLength: 5 }), { item: 'ab' })).toEqual([
      '`item` has 2 characters ("ab"), expected at least 5',
    ]);
    expect(sentences(holder({ minLength: 1 }), { item: '' })).toEqual(['`item` has 0 characters, expected at least 1']);
    expect(sentences(holder({ maxLength: 3 }), { item: 'abcd' })).toEqual([
      '`item` has 4 characters, expected at most 3',
    ]);
    expect(sentences(holder({ pattern: '^[A-Z]{2}$' }), { item: 'nl' })).toEqual([
      '`item` ("nl") does not match the pattern /^[A-Z]{2}$/',
    ]);
    expect(sentences(holder({ enum: ['Open', 'Failed'] }), { item: 'Pending' })).toEqual([
      '`item` is "Pending", expected one of "Open", "Failed"',
    ]);
    expect(sentences(holder({ const: 'Open' }), { item: 'Closed' })).toEqual(['`item` is "Closed", expected "Open"']);
    const withFormat = new Ajv2020({ allErrors: true, strict: false });
    withFormat.addFormat('date-time', /^\d{4}-\d\d-\d\dT/);
    const validate = withFormat.compile(holder({ type: 'string', format: 'date-time' }));
    validate({ item: 'yesterday' });
    expect(validate.errors?.map((e) => describeSchemaError(e, { item: 'yesterday' }, 'json'))).toEqual([
      '`item` ("yesterday") is not a valid date and time (RFC 3339)',
    ]);
  });

  it('covers numbers, members and items', () => {
    expect(sentences(holder({ minimum: 1, maximum: 0, multipleOf: 2 }), { item: 0.5 })).toEqual([
      '`item` is 0.5, expected at most 0',
      '`item` is 0.5, expected at least 1',
      '`item` is 0.5, expected a multiple of 2',
    ]);
    expect(sentences(holder({ exclusiveMinimum: 1 }), { item: 1 })).toEqual(['`item` is 1, expected more than 1']);
    expect(sentences(holder({ exclusiveMaximum: 1 }), { item: 1 })).toEqual(['`item` is 1, expected less than 1']);
    expect(sentences({ type: 'object', additionalProperties: false }, { extra: 1 })).toEqual([
      '`extra` is not allowed here',
    ]);
    expect(sentences({ unevaluatedProperties: false }, { extra: 1 })).toEqual(['`extra` is not allowed here']);
    expect(sentences(holder({ minProperties: 2, maxProperties: 0 }), { item: { a: 1 } })).toEqual([
      '`item` has 1 member, expected at most 0',
      '`item` has 1 member, expected at least 2',
    ]);
    expect(sentences(holder({ propertyNames: { pattern: '^[a-z]' } }), { item: { Bad: 1 } })).toEqual([
      'the name of the member `item.Bad` ("Bad") does not match the pattern /^[a-z]/',
      '`item` has a member named "Bad", a name that is not allowed',
    ]);
    expect(sentences({ dependentRequired: { city: ['country'] } }, { city: 'Delft' })).toEqual([
      '`country` is missing (it must come with `city`)',
    ]);
    expect(sentences(holder({ minItems: 2, maxItems: 0, uniqueItems: true }), { item: [1, 1, 1] })).toEqual([
      '`item` has 3 items, expected at most 0',
      '`item` has the same item twice (items 1 and 2)',
    ]);
    expect(sentences(holder({ minItems: 2 }), { item: [1] })).toEqual(['`item` has 1 item, expected at least 2']);
    expect(sentences(holder({ contains: { type: 'string' } }), { item: [1] })).toEqual([
      '`item[0]` is a number (1), expected a string',
      '`item` has no item of the kind expected',
    ]);
    expect(sentences(holder({ prefixItems: [{}], items: false }), { item: [1, 2] })).toEqual([
      '`item` has 2 items, expected at most 1',
    ]);
  });

  it('covers combinations, conditions and unknown keywords', () => {
    expect(sentences(holder({ anyOf: [{ type: 'string' }, { type: 'null' }] }), { item: 3 }).at(-1)).toBe(
      '`item` (a number (3)) matches none of the allowed forms',
    );
    expect(sentences(holder({ oneOf: [{ type: 'number' }, { minimum: 0 }] }), { item: 3 })).toEqual([
      '`item` matches more than one of the allowed forms, expected exactly one',
    ]);
    expect(sentences(holder({ not: { type: 'number' } }), { item: 3 })).toEqual([
      '`item` (a number (3)) is of a form that is not allowed',
    ]);
    expect(
      sentences(holder(JSON.parse('{"if": {"type": "string"}, "then": {"minLength": 3}}')), { item: 'ab' }).at(-1),
    ).toBe('`item` does not meet the conditions its "then" branch sets');
    expect(sentences(holder(false as unknown as object), { item: 1 })).toEqual(['`item` is not allowed here']);
    expect(
      describeSchemaError(
        { keyword: 'madeUp', instancePath: '/item', schemaPath: '#', params: {}, message: 'must be made up' },
        { item: 1 },
        'json',
      ),
    ).toBe('`item` must be made up');
  });

  it('names the root, array items and escaped names as each form writes them', () => {
    expect(sentences({ type: 'object' }, [1])).toEqual(['the body is an array of 1, expected an object']);
    expect(sentences({ type: 'object' }, 'x', 'xml')).toEqual([
      'the root element is text ("x"), expected an element with child elements',
    ]);
    expect(sentences({ type: ['string', 'null'] }, 3, 'xml')).toEqual([
      'the root element is a number (3), expected text or nil',
    ]);
    const model = { items: [{ name: 'a' }, { name: 'b' }], 'a/b': { '~x': 1 } };
    expect(memberName(model, '/items/1/name', 'json')).toBe('items[1].name');
    expect(memberName(model, '/items/1/name', 'xml')).toBe('Items[2]/Name');
    expect(memberName(model, '/a~1b/~0x', 'json')).toBe('a/b.~x');
  });

  it('cuts a long value short', () => {
    const long = 'x'.repeat(100);
    expect(sentences(holder({ type: 'number' }), { item: long })).toEqual([
      `\`item\` is a string ("${'x'.repeat(40)}…"), expected a decimal number`,
    ]);
  });
});
