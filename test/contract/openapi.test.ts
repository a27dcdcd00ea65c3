import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASE_URL, openApiDocument } from '../../src/contract/openapi.js';
import {
  CHECKOUT_REQUEST_EXAMPLE,
  textOfXmlExample,
  UPLOAD_RESULT_EXAMPLE,
  XML_EXAMPLE_KEY,
} from '../../src/contract/openapi-examples.js';
import { RULES } from '../../src/contract/rules.js';
import { type SchemaName, validatorFor, xmlNameOf } from '../../src/contract/schemas.js';
import { runCli } from '../helpers/cli.js';
import { realSample } from '../helpers/exchanges.js';

/** The XML text of a content map's XML example (see xmlExample). */
const xmlExampleOf = (content: any) => textOfXmlExample(content['application/xml']);

/** A document is walked as the JSON it is. */
type Json = any;

const document: Json = openApiDocument();
const components = document.components.schemas;
const operations = Object.values(document.paths).flatMap((item: Json) =>
  ['get', 'post'].filter((method) => item[method]).map((method) => ({ item, operation: item[method] })),
);
const mediaTypes = operations.flatMap(({ operation }) => [
  ...Object.values(operation.requestBody?.content ?? {}),
  ...Object.values(operation.responses).flatMap((response: Json) => Object.values(response.content ?? {})),
]) as Json[];

/** Every schema object under a value, with the JSON name it stands under ('' for none). */
function* schemasIn(schema: Json, name = ''): Generator<[string, Json]> {
  yield [name, schema];
  for (const [key, sub] of Object.entries(schema.properties ?? {})) yield* schemasIn(sub, key);
  if (schema.items) yield* schemasIn(schema.items);
}

const folder = mkdtempSync(join(tmpdir(), 'openapi-test-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 under a well-kept validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('names every property with the XML name the rules use, and every root as the rules do', () => {
    const wrong: string[] = [];
    for (const [component, schema] of Object.entries(components) as [string, Json][]) {
      for (const [name, sub] of schemasIn(schema)) {
        if (name === '' || sub.xml?.attribute) continue;
        if (sub.xml?.name !== xmlNameOf(name)) wrong.push(`${component}: ${name} is named ${sub.xml?.name}`);
      }
    }
    expect(wrong).toEqual([]);
    const roots = Object.fromEntries(
      Object.entries(components).map(([key, schema]: [string, Json]) => [key, schema.xml]),
    );
    expect(roots).toEqual({
      CheckoutRequest: { name: 'Checkout' },
      Checkout: { name: 'Checkout' },
      CheckoutXml: { name: 'Checkout' },
      UploadResult: { name: 'UploadResult' },
      Error: { name: 'Error' },
    });
    expect(components.Error.properties.hints.xml).toEqual({ name: 'Hints', wrapped: true });
    expect(components.Error.properties.hints.items.xml).toEqual({ name: 'Hint' });
  });

  it('describes the nil Tax in the XML form of a checkout only, and forbids a JSON tax', () => {
    const tax = components.CheckoutXml.properties.tax;
    expect(tax.xml).toEqual({ name: 'Tax' });
    expect(tax.type).toEqual(['object', 'null']);
    expect(tax.properties.nil).toMatchObject({ const: 'true', xml: { name: 'nil', prefix: 'xsi', attribute: true } });
    expect(tax.description).toContain('http://www.w3.org/2001/XMLSchema-instance');
    expect(components.Checkout.properties.tax).toBeUndefined();
    expect(components.Checkout.not).toEqual({ required: ['tax'], properties: { tax: {} } });
    const answers = operations.flatMap(({ operation }) =>
      ['200', '201'].flatMap((status) =>
        operation.responses[status]?.content ? [operation.responses[status].content] : [],
      ),
    );
    const checkoutAnswers = answers.filter((content) => content['application/json'].schema.$ref.endsWith('/Checkout'));
    expect(checkoutAnswers.length).toBe(3);
    for (const content of checkoutAnswers)
      expect(content['application/xml'].schema.$ref).toBe('#/components/schemas/CheckoutXml');
  });

  it('merges allOf and $ref into plain objects, the schemas’ constraints kept', () => {
    const text = JSON.stringify(document);
    expect(text).not.toContain('"allOf"');
    expect(text).not.toMatch(/"\$ref":"(?!#\/components\/schemas\/)/);
    const billing = components.Checkout.properties.billing;
    expect(billing).toMatchObject({ type: 'object', required: ['address'], xml: { name: 'Billing' } });
    expect(Object.keys(billing.properties.address.properties)).toEqual([
      'name',
      'line1',
      'postCode',
      'city',
      'country',
      'email',
    ]);
    expect(Object.keys(components.CheckoutRequest.properties.billing.properties.address.properties)).not.toContain(
      'email',
    );
    expect(components.CheckoutRequest.properties.returnUrl).toMatchObject({ minLength: 5, maxLength: 512 });
    expect(components.Checkout.required).toEqual(['amount', 'status', 'paymentUrl', 'billing']);
  });

  it('gives the real service’s statuses: 201 with an optional Location or 200 for a set-up, 200 or 201 for an upload, refusals with a body', () => {
    const setUp = document.paths['/checkout/{code}'].post.responses;
    const upload = document.paths['/files/{code}'].post.responses;
    expect(Object.keys(setUp).sort()).toEqual(['200', '201', '400', '401', '403', '404', '415']);
    expect(setUp['201'].headers.Location).toMatchObject({ schema: { type: 'string', format: 'uri' } });
    expect(Object.keys(upload).sort()).toEqual(['200', '201', '400', '401', '403', '404', '415']);
    // Conformant services omit Location; a peer that checks required headers must not flag them.
    for (const answer of [setUp['201'], upload['201']]) expect(answer.headers.Location.required).toBeFalsy();
    for (const status of ['400', '401', '403', '404'])
      expect(setUp[status].content['application/xml'].schema.$ref).toBe('#/components/schemas/Error');
  });

  it('has a server with a baseUrl variable and OAuth2 client credentials or a bearer token', () => {
    expect(document.servers).toEqual([
      expect.objectContaining({
        url: '{baseUrl}',
        variables: { baseUrl: expect.objectContaining({ default: 'http://127.0.0.1:8080/v2' }) },
      }),
    ]);
    expect(document.security).toEqual([{ clientCredentials: [] }, { bearer: [] }]);
    const schemes = document.components.securitySchemes;
    expect(schemes.clientCredentials.flows.clientCredentials.tokenUrl).toBe(`${DEFAULT_BASE_URL}oauth`);
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const other: Json = openApiDocument({ baseUrl: 'https://test.example.com/v2/' });
    expect(other.servers[0].variables.baseUrl.default).toBe('https://test.example.com/v2');
    expect(other.components.securitySchemes.clientCredentials.flows.clientCredentials.tokenUrl).toBe(
      'https://test.example.com/v2/oauth',
    );
  });

  it('has an example for every parameter and every body', () => {
    for (const { item } of operations) for (const parameter of item.parameters) expect(parameter.example).toBeTruthy();
    expect(mediaTypes.length).toBeGreaterThan(20);
    for (const media of mediaTypes) expect(media.example ?? media.examples ?? media[XML_EXAMPLE_KEY]).toBeTruthy();
    // Spectral's default ruleset needs a value in every Example Object and fails an XML string
    // checked against its object schema; Specmatic reads an externalValue as an empty body. So
    // every Example Object has a value, and XML text stands only in the extension.
    for (const media of mediaTypes) {
      for (const example of Object.values(media.examples ?? {}) as Json[])
        expect(example.value ?? example.externalValue).toBeTruthy();
      if (media[XML_EXAMPLE_KEY]) expect([media.example, media.examples]).toEqual([undefined, undefined]);
      if (media.schema?.$ref) expect(typeof media.example).not.toBe('string');
    }
  });

  it('lists the nil Tax second in the XML checkout, where the XML examples put it', () => {
    const xml = document.components.schemas.CheckoutXml;
    expect(Object.keys(xml.properties).slice(0, 2)).toEqual(['amount', 'tax']);
    const answer = xmlExampleOf(document.paths['/checkout/{code}'].get.responses['200'].content);
    expect(answer.indexOf('<Tax ')).toBeGreaterThan(answer.indexOf('<Amount>'));
    expect(answer.indexOf('<Tax ')).toBeLessThan(answer.indexOf('<Status>'));
  });

  it('lets a request send null for any string, as the service reads it as absent', () => {
    const request = document.components.schemas.CheckoutRequest;
    expect(request.properties.returnUrl.type).toEqual(['string', 'null']);
    expect(request.properties.billing.properties.address.properties.country.type).toEqual(['string', 'null']);
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: document.components });
    const validate = ajv.getSchema('doc#/components/schemas/CheckoutRequest');
    expect(validate?.({ returnUrl: null, billing: { address: { name: null } } })).toBe(true);
    expect(validate?.({ returnUrl: 5 })).toBe(false);
    expect(document.components.schemas.Checkout.properties.status.type).toBe('string');
  });

  it('gives examples that the schemas, its own and the rules’ own, accept', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
    const judged: [SchemaName | undefined, string, unknown][] = mediaTypes
      .filter((media) => media.schema?.$ref && typeof media.example === 'object')
      .map((media) => {
        const component = media.schema.$ref.split('/').pop();
        const file = { CheckoutRequest: 'checkout-request', Checkout: 'checkout', UploadResult: 'upload-result' }[
          component as string
        ] as SchemaName | undefined;
        return [file, component, media.example];
      });
    expect(judged.length).toBeGreaterThan(10);
    for (const [file, component, example] of judged) {
      const own = ajv.getSchema(`openapi#/components/schemas/${component}`);
      expect(own?.(example), `${component}: ${JSON.stringify(own?.errors)}`).toBe(true);
      if (file) expect(validatorFor(file)(example)).toBe(true);
    }
  });

  it('takes its request and upload examples from the real service’s samples, the XML written from the JSON', () => {
    const setUp = document.paths['/checkout/{code}'].post.requestBody.content;
    expect(CHECKOUT_REQUEST_EXAMPLE).toEqual(JSON.parse(realSample('checkout-request.json')));
    expect(xmlExampleOf(setUp)).toBe(realSample('checkout-request.xml').trimEnd());
    const stored = document.paths['/files/{code}'].post.responses['200'].content;
    expect(stored['application/json'].example).toEqual(UPLOAD_RESULT_EXAMPLE);
    expect(UPLOAD_RESULT_EXAMPLE).toEqual(JSON.parse(realSample('upload-result.json')));
    expect(xmlExampleOf(stored)).toBe(realSample('upload-result.xml').trimEnd());
    const answer = xmlExampleOf(document.paths['/checkout/{code}'].post.responses['201'].content);
    expect(answer).toContain('<Tax xsi:nil="true" />');
    expect(answer).toContain('<Email>billing@example.com</Email>');
  });

  it('lists with each operation the rules that judge it', () => {
    const listed = new Set(operations.flatMap(({ operation }) => operation['x-conformance-rules']));
    expect(document.paths['/files/{code}'].post['x-conformance-rules']).toContain('upload.file-type');
    expect(document.paths['/checkout/{code}'].get['x-conformance-rules']).toContain('checkout.get.shape');
    expect(document.paths['/checkout/{code}'].get['x-conformance-rules']).not.toContain('upload.file-type');
    expect([...listed].sort()).toEqual(RULES.map((rule) => rule.id).sort());
  });
});

describe('print-conformance openapi', () => {
  it('prints the document', async () => {
    const result = await runCli(['openapi']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(document);
  });

  it('writes it for the service of --base-url with -o', async () => {
    const file = join(folder, 'openapi.json');
    const result = await runCli(['openapi', '--base-url', 'https://test.example.com/v2', '-o', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.servers[0].variables.baseUrl.default).toBe('https://test.example.com/v2');
  });

  it('refuses a base URL that is not one in one line, exit 2', async () => {
    const result = await runCli(['openapi', '--base-url', 'ftp://x']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--base-url ftp://x is not an absolute http(s) URL');
    const query = await runCli(['openapi', '--base-url', 'https://x.example/v2?x=1#f']);
    expect(query.code).toBe(2);
    expect(query.stderr).toBe(
      'print-conformance: --base-url https://x.example/v2?x=1#f: a base URL has no query or fragment\n',
    );
  });

  it('prints the document for -o -, as tools spell standard output, and writes no file named -', async () => {
    const result = await runCli(['openapi', '-o', '-'], { cwd: folder });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(document);
    expect(existsSync(join(folder, '-'))).toBe(false);
  });
});
