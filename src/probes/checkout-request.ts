import { escapeXml, writeResourceXml } from '../contract/xml-writer.js';
import { XSI_NAMESPACE } from '../validate/xml.js';
import type { Format } from './config.js';

// The checkout requests the suite sends: the real service's published sample, with a ReturnUrl of
// the probe's choosing, and the other ways a well-formed request may be written.

export const SAMPLE_ADDRESS = {
  name: 'Print API',
  line1: 'Osloweg 75',
  postCode: '9700 GE',
  city: 'Groningen',
  country: 'NL',
};

/** A second address, with characters outside ASCII, for a set-up that replaces the first. */
export const OTHER_ADDRESS = {
  name: 'Café Müller',
  line1: 'Grote Markt 1',
  postCode: '8011 LW',
  city: 'Zwolle',
  country: 'NL',
};

export function checkoutRequestBody(
  format: Format,
  returnUrl: string | undefined,
  address: Record<string, string> = SAMPLE_ADDRESS,
): string {
  const model: Record<string, unknown> = returnUrl === undefined ? {} : { returnUrl };
  model.billing = { address };
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

/**
 * A URL of `units` UTF-16 code units padded with `é`: as many code points, but more UTF-8 bytes
 * (two each), so a service that counts bytes refuses it where .NET accepts it.
 */
export function multiByteReturnUrl(units: number, marker = ''): string {
  return `https://shop.example.test/café?probe=${marker}&pad=`.padEnd(units, 'é');
}

/**
 * A URL of `units` UTF-16 code units that holds one character outside the BMP (an emoji, two
 * units): one code point fewer, so a service that counts code points takes 513 units for 512.
 */
export function astralReturnUrl(units: number, marker = ''): string {
  return `https://shop.example.test/return?probe=${marker}&mood=\u{1F600}&pad=`.padEnd(units, 'x');
}

/**
 * A URL of `units` UTF-16 code units that holds an "e" and a combining acute accent (U+0301): NFC
 * makes them one "é", one unit fewer, so a service that normalises before counting (as Java's and
 * Python's form libraries may) takes 513 units for 512.
 */
export function combiningReturnUrl(units: number, marker = ''): string {
  return `https://shop.example.test/cafe\u0301?probe=${marker}&pad=`.padEnd(units, 'x');
}

/**
 * A URL of `units` UTF-16 code units whose last is a space: one unit fewer once trimmed, so a
 * service that trims white space before counting takes 513 units for 512.
 */
export function trailingSpaceReturnUrl(units: number, marker = ''): string {
  return `${returnUrlOfLength(units - 1, marker)} `;
}

/**
 * A URL of `units` UTF-16 code units that holds a `%20` escape: two units fewer once decoded, so
 * a service that decodes escapes before counting takes 513 units for 511.
 */
export function escapedReturnUrl(units: number, marker = ''): string {
  return `https://shop.example.test/return?probe=${marker}&note=a%20b&pad=`.padEnd(units, 'x');
}

const DECLARATION = '<?xml version="1.0"?>';

/** The XML sample as written with a UTF-8 byte order mark before it. */
export const withByteOrderMark = (xml: string) => `\uFEFF${xml}`;

/** The XML sample with a declaration that names its encoding. */
export const withEncodingDeclaration = (xml: string) =>
  xml.replace(DECLARATION, '<?xml version="1.0" encoding="utf-8"?>');

/** The XML sample without any declaration (XML 1.0 does not need one). */
export const withoutDeclaration = (xml: string) => xml.replace(`${DECLARATION}\n`, '');

/**
 * A ReturnUrl that is nil, with the XMLSchema-instance namespace bound to the prefix `i` (as
 * DataContractSerializer binds it): no ReturnUrl is sent, whatever the prefix.
 */
export function nilReturnUrlXml(): string {
  return writeResourceXml('checkout-request', { billing: { address: SAMPLE_ADDRESS } }, 'i').replace(
    '  <Billing>',
    '  <ReturnUrl i:nil="true" />\n  <Billing>',
  );
}

/**
 * A ReturnUrl that only looks nil: its `xsi` prefix is bound to another namespace, so the element is
 * an empty string, which is too short.
 */
export function falseNilReturnUrlXml(): string {
  return writeResourceXml('checkout-request', { billing: { address: SAMPLE_ADDRESS } })
    .replace(`xmlns:xsi="${XSI_NAMESPACE}"`, 'xmlns:xsi="urn:example:not-the-schema-instance"')
    .replace('  <Billing>', '  <ReturnUrl xsi:nil="true"></ReturnUrl>\n  <Billing>');
}

/** The XML sample with its declaration in single quotes, as lxml and ElementTree write it. */
export const withSingleQuotedDeclaration = (xml: string) =>
  xml.replace(DECLARATION, "<?xml version='1.0' encoding='UTF-8'?>");

/** An XML set-up whose Billing is nil (DataContractSerializer's unset member): no Billing is sent. */
export function nilBillingXml(returnUrl: string): string {
  return writeResourceXml('checkout-request', { returnUrl }, 'i').replace(
    '</ReturnUrl>',
    '</ReturnUrl>\n  <Billing i:nil="true" />',
  );
}

/**
 * The address written back with a member the description does not name, as a client sends back
 * the address it was given (the real service answers an Email in it).
 */
export function addressWithEmail(format: Format, returnUrl: string): string {
  const model = { returnUrl, billing: { address: { ...SAMPLE_ADDRESS, email: 'billing@shop.example.test' } } };
  return format === 'json' ? JSON.stringify(model) : writeResourceXml('checkout-request', model);
}

/**
 * The second address with its accents written as character references, decimal and hexadecimal
 * (`Caf&#233; M&#xFC;ller`): an XML reader answers and stores "Café Müller"; a reader of text does not.
 */
export function characterReferencesXml(returnUrl: string): string {
  return writeResourceXml('checkout-request', { returnUrl, billing: { address: OTHER_ADDRESS } }).replace(
    escapeXml(OTHER_ADDRESS.name),
    'Caf&#233; M&#xFC;ller',
  );
}

/** A JSON set-up whose unset members are written `null`, as Json.NET and Jackson write them. */
export function jsonWithNull(member: 'returnUrl' | 'billing', returnUrl: string): string {
  const model: Record<string, unknown> =
    member === 'returnUrl' ? { returnUrl: null, billing: { address: SAMPLE_ADDRESS } } : { returnUrl, billing: null };
  return JSON.stringify(model);
}

/** A JSON set-up with billing first, as a writer that orders members by name writes it. */
export function jsonBillingFirst(returnUrl: string): string {
  return JSON.stringify({ billing: { address: SAMPLE_ADDRESS }, returnUrl });
}

export const MALFORMED_BODY: Record<Format, string> = {
  json: '{"returnUrl": "https://shop.example.test/return", "billing": {',
  xml: '<?xml version="1.0"?>\n<Checkout>\n  <ReturnUrl>https://shop.example.test/return</Checkout>',
};
