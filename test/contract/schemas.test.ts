import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AJV_OPTIONS, SCHEMA_FILES, schemas, validatorFor } from '../../src/contract/schemas.js';

// The tool compiles its schemas without checking them against the meta-schema (it costs every
// start); this is where they are checked, so a broken schema cannot ship.

describe('the shipped JSON Schemas', () => {
  it('are valid JSON Schema 2020-12, each one', () => {
    const checking = new Ajv2020({ ...AJV_OPTIONS, validateSchema: true });
    checking.addKeyword({ keyword: 'x-xml', schemaType: 'object' });
    for (const name of SCHEMA_FILES) {
      expect(checking.validateSchema(schemas[name]), `${name}: ${checking.errorsText()}`).toBe(true);
    }
  });

  it('catch a schema the meta-schema refuses', () => {
    const checking = new Ajv2020({ ...AJV_OPTIONS, validateSchema: true });
    expect(checking.validateSchema({ type: 'object', required: 'amount' })).toBe(false);
  });

  it('compile, and judge a value by them', () => {
    const checkout = validatorFor('checkout');
    expect(checkout({})).toBe(false);
    expect(checkout.errors?.map((error) => error.params.missingProperty)).toContain('paymentUrl');
  });
});
