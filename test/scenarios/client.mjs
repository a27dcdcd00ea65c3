// A scripted client of the interface, run behind `print-conformance proxy -- node client.mjs MODE`
// as a client team's integration tests would be. MODE names one way client code gets the interface
// wrong (or `good-json` / `good-xml`, which get nothing wrong). Each run places an order, sets its
// checkout up, reads it back and uploads a file, all through PRINT_CONFORMANCE_PROXY_URL.

const base = process.env.PRINT_CONFORMANCE_PROXY_URL;
const mode = process.argv[2] ?? 'good-json';
if (!base) throw new Error('PRINT_CONFORMANCE_PROXY_URL is not set');

const JSON_TYPE = 'application/json';
const XML_TYPE = 'application/xml';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const address = { name: 'Café Müller', line1: 'Damrak 1', postCode: '1012 LG', city: 'Amsterdam', country: 'NL' };
const setUp = { returnUrl: 'https://shop.example.test/thanks?order=1', billing: { address } };

const xmlOf = (
  body,
  names = (name) => name[0].toUpperCase() + name.slice(1),
  root = 'Checkout',
  rootAttributes = '',
) => {
  const element = (name, value) =>
    typeof value === 'object'
      ? `<${names(name)}>${Object.entries(value)
          .map(([k, v]) => element(k, v))
          .join('')}</${names(name)}>`
      : `<${names(name)}>${String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;')}</${names(name)}>`;
  const inner = Object.entries(body)
    .map(([k, v]) => element(k, v))
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?><${root}${rootAttributes}>${inner}</${root}>`;
};

async function call(url, init = {}) {
  // A browser's client asks first whether it may: a CORS preflight, which is not the interface.
  if (mode === 'good-browser-json')
    await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example.test', 'access-control-request-method': init.method ?? 'GET' },
    });
  const answer = await fetch(url, init);
  const text = await answer.text();
  if (process.env.CLIENT_DEBUG) process.stderr.write(`${init.method ?? 'GET'} ${url} → ${answer.status}\n`);
  return { status: answer.status, text };
}

const xmlClient = mode === 'good-xml' || mode === 'good-text-xml' || mode.startsWith('xml-');
// What clients send as Accept: one format, anything (Python requests), or nothing at all (Guzzle,
// .NET HttpClient), where the service answers its default, JSON.
const ACCEPTS = { 'good-accept-anything': '*/*', 'good-no-accept': undefined, 'good-text-xml': 'text/xml' };
const accept = mode in ACCEPTS ? ACCEPTS[mode] : xmlClient ? XML_TYPE : JSON_TYPE;
const asked = (headers) => (accept === undefined ? headers : { ...headers, accept });

// The order endpoints are JSON, as the real service's are; their URLs are what the client uses.
const order = JSON.parse(
  (
    await call(`${base}orders`, {
      method: 'POST',
      headers: { 'content-type': JSON_TYPE, accept: JSON_TYPE },
      body: '{}',
    })
  ).text,
);
const checkoutUrl = order.checkout.setupUrl;
const uploadUrl = order.items[0].files.content.uploadUrl;
const coverUrl = order.items[0].files.cover.uploadUrl;

// What the client sends to set up the checkout, where, and how it reads it back.
let setUpUrl = checkoutUrl;
let readUrl = checkoutUrl;
const setUpType = xmlClient ? XML_TYPE : JSON_TYPE;
let setUpBody = xmlClient ? xmlOf(setUp) : JSON.stringify(setUp);
const changed = (change) => {
  const body = structuredClone(setUp);
  change(body);
  return JSON.stringify(body);
};

switch (mode) {
  case 'good-json':
  case 'good-xml':
  case 'good-browser-json':
  case 'good-accept-anything':
  case 'good-no-accept':
  case 'good-text-xml':
    break;
  // ReturnUrl is optional: a client that sends none is as right as one that does.
  case 'good-without-return-url':
    setUpBody = JSON.stringify({ billing: { address } });
    break;
  // Casing and forms of the body
  case 'json-pascal-case':
    setUpBody = JSON.stringify({ ReturnUrl: setUp.returnUrl, Billing: { Address: address } });
    break;
  case 'json-form-labelled-json':
    setUpBody = `returnUrl=${encodeURIComponent(setUp.returnUrl)}&billing[address][city]=Amsterdam`;
    break;
  case 'json-xml-labelled-json':
    setUpBody = xmlOf(setUp);
    break;
  case 'json-bom':
    setUpBody = `\uFEFF${JSON.stringify(setUp)}`;
    break;
  case 'xml-camel-case':
    setUpBody = xmlOf(setUp, (name) => name);
    break;
  case 'xml-class-name-root':
    setUpBody = xmlOf(setUp, undefined, 'CheckoutRequest');
    break;
  case 'xml-declares-utf16':
    setUpBody = xmlOf(setUp).replace('encoding="utf-8"', 'encoding="utf-16"');
    break;
  // ReturnUrl lengths
  case 'json-return-url-too-long':
    setUpBody = changed((b) => {
      b.returnUrl = `https://shop.example.test/${'a'.repeat(487)}`;
    });
    break;
  case 'json-return-url-too-short':
    setUpBody = changed((b) => {
      b.returnUrl = 'a://';
    });
    break;
  // The "in" form of the request
  case 'json-billing-flat':
    setUpBody = changed((b) => {
      b.billing = { ...address };
    });
    break;
  case 'json-billing-string':
    setUpBody = changed((b) => {
      b.billing = 'Café Müller, Damrak 1, 1012 LG Amsterdam';
    });
    break;
  case 'json-return-url-number':
    setUpBody = changed((b) => {
      b.returnUrl = 12345;
    });
    break;
  case 'json-post-code-number':
    setUpBody = changed((b) => {
      b.billing.address.postCode = 1012;
    });
    break;
  case 'json-country-name':
    setUpBody = changed((b) => {
      b.billing.address.country = 'Netherlands';
    });
    break;
  // URLs built by hand instead of used as given
  case 'json-checkout-without-code':
    setUpUrl = `${base}checkout`;
    setUpBody = changed((b) => {
      b.orderId = order.id;
    });
    break;
  case 'json-checkout-order-id':
    setUpUrl = `${base}checkout/${order.id}`;
    break;
  case 'json-get-order-id':
    readUrl = `${base}checkout/${order.id}`;
    break;
  case 'json-code-lower-cased':
    setUpUrl = checkoutUrl.replace(/[^/]+$/, (code) => code.toLowerCase());
    break;
}

await call(setUpUrl, { method: 'POST', headers: asked({ 'content-type': setUpType }), body: setUpBody });
await call(readUrl, { headers: asked({}) });

// The upload: a PDF to the content slot, unless the mode gets it wrong.
let target = uploadUrl;
let uploadType = 'application/pdf';
let uploadBody = PDF;
switch (mode) {
  case 'json-upload-octet-stream':
    uploadType = 'application/octet-stream';
    break;
  case 'json-upload-text-plain':
    uploadType = 'text/plain';
    break;
  case 'json-upload-png-labelled-pdf':
    uploadBody = PNG;
    target = coverUrl;
    break;
  case 'json-upload-order-id-content':
    target = `${base}files/${order.id}/content`;
    break;
  case 'json-upload-multipart-octet-stream': {
    const form = new FormData();
    form.append('file', new Blob([PDF], { type: 'application/octet-stream' }), 'book.pdf');
    await call(target, { method: 'POST', headers: asked({}), body: form });
    target = undefined;
    break;
  }
}
if (target) await call(target, { method: 'POST', headers: asked({ 'content-type': uploadType }), body: uploadBody });
