import type { Document } from './document.js';
import { isMasked, isMaskedWhole } from './exchange.js';
import type { Judging } from './judging.js';
import { ADDRESS_FIELDS, displayPath, memberOf } from './model.js';

// checkout.request.schema and the request side of checkout.country-code: what a client sends in
// a set-up. A service binding the documented "in" form silently drops what is elsewhere, so a
// client's misplaced member is its fault to find here, not the service's to report.

const ADDRESS_NAMES = new Map(ADDRESS_FIELDS.map((field) => [field.toLowerCase(), field]));

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  return `a ${typeof value} (${String(value)})`;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const maskedWhole = (value: unknown) => typeof value === 'string' && isMaskedWhole(value);

/** Null stands for absent: the service reads it so. */
const present = (value: unknown) => value !== undefined && value !== null;

export function checkCheckoutRequest(model: unknown, format: Document['format'], out: Judging): void {
  const at = (pointer: string) => displayPath(pointer, format);
  const rule = 'checkout.request.schema';
  if (!isObject(model)) {
    out.add(rule, 'request', `the checkout request is ${kindOf(model)}, expected an object`, at(''));
    return;
  }
  const returnUrl = memberOf(model, 'returnUrl');
  if (present(returnUrl) && typeof returnUrl !== 'string')
    out.add(rule, 'request', `${at('/returnUrl')} is ${kindOf(returnUrl)}, expected a string`, at('/returnUrl'));
  const billing = memberOf(model, 'billing');
  // Masked whole by the recording (--redact Billing), its shape is not known (see isMasked).
  if (!present(billing)) return;
  if (maskedWhole(billing)) {
    out.facts.requestShapeMasked = true;
    return;
  }
  if (!isObject(billing)) {
    out.add(
      rule,
      'request',
      `${at('/billing')} is ${kindOf(billing)}, expected an object holding address`,
      at('/billing'),
    );
    return;
  }
  for (const key of Object.keys(billing)) {
    const field = ADDRESS_NAMES.get(key.toLowerCase());
    if (field === undefined) continue;
    out.add(
      rule,
      'request',
      `${at(`/billing/${key}`)} is an address field directly under billing: it belongs in ${at(`/billing/address/${field}`)} (a service binding the documented form drops it)`,
      at(`/billing/${key}`),
    );
  }
  const address = memberOf(billing, 'address');
  if (!present(address)) return;
  if (maskedWhole(address)) {
    out.facts.requestShapeMasked = true;
    return;
  }
  if (!isObject(address)) {
    out.add(
      rule,
      'request',
      `${at('/billing/address')} is ${kindOf(address)}, expected an object`,
      at('/billing/address'),
    );
    return;
  }
  for (const field of ADDRESS_FIELDS) {
    const value = memberOf(address, field);
    if (present(value) && typeof value !== 'string')
      out.add(
        rule,
        'request',
        `${at(`/billing/address/${field}`)} is ${kindOf(value)}, expected a string`,
        at(`/billing/address/${field}`),
      );
  }
  const country = memberOf(address, 'country');
  if (typeof country !== 'string') return;
  if (isMasked(country)) {
    out.facts.countryMasked = true;
    return;
  }
  out.facts.requestCountry = true;
  if (!isCountryCode(country))
    out.add(
      'checkout.country-code',
      'request',
      `the client sent Country "${country}": a two-letter upper-case code is expected (NL, not Netherlands)`,
      at('/billing/address/country'),
    );
}

export function isCountryCode(value: string): boolean {
  return /^[A-Z]{2}$/.test(value);
}
