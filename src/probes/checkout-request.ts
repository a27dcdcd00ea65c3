import { writeResourceXml } from '../contract/xml-writer.js';
import type { Format } from './config.js';

// The checkout request the suite sends: the real service's published sample, with a ReturnUrl of
// the probe's choosing.

export const SAMPLE_ADDRESS = {
  name: 'Print API',
  line1: 'Osloweg 75',
  postCode: '9700 GE',
  city: 'Groningen',
  country: 'NL',
};

export function checkoutRequestBody(format: Format, returnUrl: string | undefined): string {
  const model: Record<string, unknown> = returnUrl === undefined ? {} : { returnUrl };
  model.billing = { address: SAMPLE_ADDRESS };
  return format === 'json' ? JSON.stringify(model) : writeResourceXml('checkout-request', model);
}

/** An ASCII URL of exactly `length` characters that carries `marker` when there is room. */
export function returnUrlOfLength(length: number, marker = ''): string {
  const short = ['', 'a', 'a:', 'a:/', 'a://', 'a://b', 'http:/x', 'http://x'];
  if (length < short.length) return (short[length] ?? '').padEnd(length, 'x');
  const base = `https://shop.example.test/return?probe=${marker}&pad=`;
  if (base.length >= length) return `https://s.test/${'x'.repeat(Math.max(0, length - 15))}`.slice(0, length);
  return base.padEnd(length, 'x');
}

export const MALFORMED_BODY: Record<Format, string> = {
  json: '{"returnUrl": "https://shop.example.test/return", "billing": {',
  xml: '<?xml version="1.0"?>\n<Checkout>\n  <ReturnUrl>https://shop.example.test/return</Checkout>',
};
