import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionRedaction } from '../src/redaction/index.js';
import type { Exchange } from '../src/validate/exchange.js';

// CPU per exchange of the proxy's redaction, in-process, for exchanges with nothing secret in them
// but an Authorization header (the proxy redacts every exchange it records). Not part of
// `npm run bench`: run it alone with `npx tsx bench/redaction-cost.ts`.
// CPU time rather than wall time, best of five rounds: other load on the machine only adds to it.

const real = (name: string) =>
  readFileSync(join(import.meta.dirname, '..', '..', 'shared', 'fixtures', 'real', name), 'utf8');
const body = (text: string) => ({ text, size: Buffer.byteLength(text) });
const url = 'https://api.example.test/v2/checkout/5L2zKMnOqp6A15GoP909Z';
const requestJson = real('checkout-request.json');
const responseJson = JSON.stringify(
  {
    amount: 22.49,
    status: 'Open',
    paymentUrl: 'https://api.example.test/v2/payments/abc/start',
    ...JSON.parse(requestJson),
  },
  null,
  2,
);
const requestXml = real('checkout-request.xml');
const responseXml = requestXml.replace(
  '  <ReturnUrl>',
  '  <Amount>22.49</Amount>\n  <Status>Open</Status>\n  <PaymentUrl>https://api.example.test/v2/payments/abc/start</PaymentUrl>\n  <Tax xsi:nil="true" />\n  <ReturnUrl>',
);
const requestHeaders = (type: string) => ({
  host: 'api.example.test',
  'user-agent': 'shop-client/1.0',
  accept: type,
  'content-type': type,
  'content-length': '420',
  authorization: 'Bearer abc.def.ghi',
  'accept-encoding': 'gzip, deflate',
});
const responseHeaders = (type: string) => ({
  'content-type': type,
  date: 'Mon, 23 Nov 2026 13:33:01 GMT',
  'content-length': '512',
  connection: 'keep-alive',
  location: url,
});
const post = (type: string, request: string, response: string): Exchange => ({
  request: { method: 'POST', url, headers: requestHeaders(type), body: body(request) },
  response: { status: 201, headers: responseHeaders(type), body: body(response) },
});

const exchanges: Record<string, Exchange> = {
  'POST checkout json': post('application/json', requestJson, responseJson),
  'POST checkout xml': post('application/xml', requestXml, responseXml),
  'GET checkout json': {
    request: { method: 'GET', url, headers: { accept: 'application/json', host: 'api.example.test' } },
    response: { status: 200, headers: responseHeaders('application/json'), body: body(responseJson) },
  },
  'POST files pdf': {
    request: {
      method: 'POST',
      url: 'https://api.example.test/v2/files/9fQ2k',
      headers: requestHeaders('application/pdf'),
      body: {
        size: 1_048_576,
        sha256: 'ab'.repeat(32),
        headBase64: Buffer.from(`%PDF-1.7 ${'x'.repeat(55)}`).toString('base64'),
      },
    },
    response: { status: 200, headers: responseHeaders('application/json'), body: body(real('upload-result.json')) },
  },
};

const redact = sessionRedaction({ headers: [], members: [] }).exchange;
const TIMES = 100_000;
for (const [name, exchange] of Object.entries(exchanges)) {
  for (let i = 0; i < 20_000; i += 1) redact(exchange);
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round += 1) {
    const started = process.cpuUsage();
    for (let i = 0; i < TIMES; i += 1) redact(exchange);
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / TIMES);
  }
  process.stdout.write(`${name.padEnd(20)} ${best.toFixed(2)} µs\n`);
}
