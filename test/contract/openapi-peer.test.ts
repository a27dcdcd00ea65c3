import { Ajv2020 } from 'ajv/dist/2020.js';
import { sample } from 'openapi-sampler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/contract/openapi.js';
import { textOfXmlExample } from '../../src/contract/openapi-examples.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { xmlShape } from './xml-shape.js';

// The document read by a tool that honours XML Objects: openapi-sampler (Redocly's, behind Redoc)
// writes the XML a schema describes. What it writes must use the names the reference service
// answers with, element for element and attribute for attribute.

/** A document is walked as the JSON it is. */
type Json = any;

let service: ReferenceService;
let document: Json;

beforeAll(async () => {
  service = await startReferenceService();
  document = openApiDocument({ baseUrl: service.baseUrl });
});
afterAll(() => service.close());

/** The XML openapi-sampler writes for the body a media type describes. */
const xmlExampleText = (media: Json) => textOfXmlExample(media);
const sampledXml = (media: Json) => sample(media.schema, { format: 'xml', quiet: true }, document) as string;

/**
 * openapi-sampler 1.7 writes an attribute whose value is "true" with no value at all (its XML
 * builder takes it for an HTML boolean attribute): the one flaw its text may have here.
 */
function namesOfSample(xml: string): string[] {
  const { paths, errors } = xmlShape(xml);
  expect(
    errors.every((error) => error === 'attribute without value.'),
    errors.join('; '),
  ).toBe(true);
  return paths;
}

function namesOfAnswer(xml: string): string[] {
  const { paths, errors } = xmlShape(xml);
  expect(errors).toEqual([]);
  return paths;
}

async function call(method: string, url: string, headers: Record<string, string>, body?: string) {
  const response = await fetch(url, { method, headers, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function placeOrder() {
  const order = await call('POST', `${service.baseUrl}orders`, { 'content-type': 'application/json' }, '{}');
  const body = JSON.parse(order.text);
  return { checkoutUrl: body.checkout.setupUrl as string, uploadUrl: body.items[0].files.cover.uploadUrl as string };
}

const XML = { 'content-type': 'application/xml', accept: 'application/xml' };

describe('openapi-sampler reading the document', () => {
  it('writes a checkout answer with the root, the PascalCase names and the nil Tax', () => {
    const xml = sampledXml(document.paths['/checkout/{code}'].get.responses['200'].content['application/xml']);
    expect(xml).toMatch(/^<Checkout>/);
    expect(xml).toContain('<ReturnUrl>');
    expect(xml).toContain('<PostCode>');
    expect(xml).toContain('<Email>');
    expect(xml).toMatch(/<Tax [^>]*\bnil\b[^>]*>/);
    expect(xml).not.toMatch(/<(returnUrl|amount|billing|tax)\b/);
  });

  it('writes the names of the reference service’s answer to the document’s own example request', async () => {
    const { checkoutUrl } = await placeOrder();
    const post = document.paths['/checkout/{code}'].post;
    const sent = await call('POST', checkoutUrl, XML, xmlExampleText(post.requestBody.content['application/xml']));
    expect(Object.keys(post.responses)).toContain(String(sent.status));
    expect(sent.status).toBe(201);
    expect(sent.headers.get('location')).toBe(checkoutUrl);
    const described = post.responses['201'].content['application/xml'];
    expect(namesOfAnswer(sent.text)).toEqual(namesOfSample(sampledXml(described)));
    expect(namesOfAnswer(sent.text)).toContain('Checkout/Tax@xsi:nil');

    const read = await call('GET', checkoutUrl, { accept: 'application/xml' });
    expect(read.status).toBe(200);
    expect(namesOfAnswer(read.text)).toEqual(namesOfSample(sampledXml(described)));
  });

  it('writes the names of the request the reference service takes', () => {
    const content = document.paths['/checkout/{code}'].post.requestBody.content['application/xml'];
    expect(namesOfSample(sampledXml(content))).toEqual(namesOfAnswer(xmlExampleText(content)));
  });

  it('writes the names of the reference service’s upload answer and of its refusals', async () => {
    const { uploadUrl } = await placeOrder();
    const upload = document.paths['/files/{code}'].post;
    const pdf = upload.requestBody.content['application/pdf'].example;
    const stored = await call('POST', uploadUrl, { 'content-type': 'application/pdf', accept: 'application/xml' }, pdf);
    expect(stored.status).toBe(200);
    expect(namesOfAnswer(stored.text)).toEqual(
      namesOfSample(sampledXml(upload.responses['200'].content['application/xml'])),
    );
    expect(namesOfAnswer(stored.text)[0]).toBe('UploadResult');

    const unknown = await call('GET', `${service.baseUrl}checkout/no-such-code`, { accept: 'application/xml' });
    expect(unknown.status).toBe(404);
    const refusal = document.paths['/checkout/{code}'].get.responses['404'].content['application/xml'];
    expect(namesOfAnswer(unknown.text)).toEqual(namesOfSample(sampledXml(refusal)));
  });

  it('finds the reference service’s JSON answers and refusals valid under the document’s JSON schemas', async () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
    const post = document.paths['/checkout/{code}'].post;
    const { checkoutUrl } = await placeOrder();
    const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
    const sent = await call(
      'POST',
      checkoutUrl,
      JSON_HEADERS,
      JSON.stringify(post.requestBody.content['application/json'].example),
    );
    expect(sent.status).toBe(201);
    const validate = ajv.getSchema(`openapi${post.responses['201'].content['application/json'].schema.$ref}`);
    expect(validate?.(JSON.parse(sent.text)), JSON.stringify(validate?.errors)).toBe(true);
    expect(validate?.({ ...JSON.parse(sent.text), tax: null })).toBe(false);

    const unknown = await call('GET', `${service.baseUrl}checkout/no-such-code`, { accept: 'application/json' });
    const refusal = document.paths['/checkout/{code}'].get.responses[String(unknown.status)];
    const error = ajv.getSchema(`openapi${refusal.content['application/json'].schema.$ref}`);
    expect(error?.(JSON.parse(unknown.text)), JSON.stringify(error?.errors)).toBe(true);
    expect(error?.({ message: 1 })).toBe(false);
  });
});
