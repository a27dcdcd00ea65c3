import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/contract/openapi.js';
import { runCli } from '../helpers/cli.js';

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 under a well-kept validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes both formats from the same schemas, XML roots included', () => {
    const document = openApiDocument() as any;
    const setUp = document.paths['/checkout/{code}'].post;
    expect(Object.keys(setUp.requestBody.content)).toEqual(['application/json', 'application/xml']);
    expect(setUp.responses['201'].content['application/xml'].schema.xml).toEqual({ name: 'Checkout' });
    expect(document.components.schemas.Checkout.properties.billing.allOf[0].$ref).toBe('#/components/schemas/Billing');
    expect(document.components.schemas.CheckoutRequest.properties.returnUrl).toMatchObject({
      minLength: 5,
      maxLength: 512,
    });
  });

  it('is printed by print-conformance openapi', async () => {
    const result = await runCli(['openapi']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).openapi).toBe('3.1.0');
  });
});
