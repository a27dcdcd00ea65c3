import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Exchange } from '../../src/validate/exchange.js';

// Exchanges built from the real service's published samples, and small changes to them.

export const SHARED = join(import.meta.dirname, '..', '..', '..', 'shared');
export const realSample = (name: string) => readFileSync(join(SHARED, 'fixtures', 'real', name), 'utf8');

export const CHECKOUT_URL = 'https://api.example.test/v2/checkout/5L2zKMnOqp6A15GoP909Z';
export const UPLOAD_URL = 'https://api.example.test/v2/files/9fQ2k';

export const checkoutRequestJson = () => realSample('checkout-request.json');
export const checkoutRequestXml = () => realSample('checkout-request.xml');

/** The real request sample answered as the real service answers it (plus the email it adds). */
export function checkoutResponseJson(): string {
  const request = JSON.parse(checkoutRequestJson());
  return JSON.stringify(
    {
      amount: 22.49,
      status: 'Open',
      paymentUrl: 'https://api.example.test/v2/payments/abc/start',
      returnUrl: request.returnUrl,
      billing: { address: { ...request.billing.address, email: 'billing@example.test' } },
    },
    null,
    2,
  ).replace(/\n/g, '\r\n');
}

export function checkoutResponseXml(): string {
  return checkoutRequestXml().replace(
    '  <ReturnUrl>',
    '  <Amount>22.49</Amount>\n  <Status>Open</Status>\n  <PaymentUrl>https://api.example.test/v2/payments/abc/start</PaymentUrl>\n  <Tax xsi:nil="true" />\n  <ReturnUrl>',
  );
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';

export function textBody(text: string) {
  return { text, size: Buffer.byteLength(text) };
}

export function binaryBody(bytes: Buffer) {
  return { base64: bytes.toString('base64'), size: bytes.length };
}

export function checkoutPost(
  format: 'json' | 'xml',
  requestText?: string,
  responseText?: string,
  status = 201,
): Exchange {
  const type = format === 'json' ? JSON_TYPE : XML_TYPE;
  const req = requestText ?? (format === 'json' ? checkoutRequestJson() : checkoutRequestXml());
  const res = responseText ?? (format === 'json' ? checkoutResponseJson() : checkoutResponseXml());
  return {
    request: {
      method: 'POST',
      url: CHECKOUT_URL,
      headers: { 'content-type': type, accept: type },
      body: textBody(req),
    },
    response: { status, headers: { 'content-type': type, location: CHECKOUT_URL }, body: textBody(res) },
  };
}

export function checkoutGet(format: 'json' | 'xml', responseText?: string, status = 200): Exchange {
  const type = format === 'json' ? JSON_TYPE : XML_TYPE;
  const res = responseText ?? (format === 'json' ? checkoutResponseJson() : checkoutResponseXml());
  return {
    request: { method: 'GET', url: CHECKOUT_URL, headers: { accept: type } },
    response: { status, headers: { 'content-type': type }, body: textBody(res) },
  };
}

export const PDF_BYTES = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(200, 0x20), Buffer.from('\n%%EOF\n')]);
export const PNG_BYTES = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(100, 1),
]);
export const JPEG_BYTES = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 2)]);

export function uploadResultJson(fileType = 'PDF', fileName = 'content') {
  return JSON.stringify({ fileName, fileType });
}

export function uploadResultXml(fileType = 'PDF', fileName = 'content') {
  return realSample('upload-result.xml').replace('>PNG<', `>${fileType}<`).replace('>cover<', `>${fileName}<`);
}

export function uploadPost(
  contentType: string,
  bytes: Buffer,
  responseText = uploadResultJson(),
  status = 200,
  responseType = JSON_TYPE,
): Exchange {
  return {
    request: {
      method: 'POST',
      url: UPLOAD_URL,
      headers: { 'content-type': contentType, accept: responseType },
      body: binaryBody(bytes),
    },
    response: { status, headers: { 'content-type': responseType }, body: textBody(responseText) },
  };
}

export function multipartBody(
  parts: { name: string; filename?: string; type?: string; bytes: Buffer }[],
  boundary = 'XyZ123',
) {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), part.bytes, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { bytes: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export const rulesOf = (violations: { rule: string }[]) => [...new Set(violations.map((v) => v.rule))].sort();
