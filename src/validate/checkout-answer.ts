import type { RuleId } from '../contract/rules.js';
import { schemas } from '../contract/schemas.js';
import { jsonNamesNotLowerCase, xmlNamesNotPascalCase } from './casing.js';
import { isCountryCode } from './checkout-request.js';
import type { Document } from './document.js';
import { isMasked, isMaskedWhole, portInRange, SECRET_MASK } from './exchange.js';
import { Judging } from './judging.js';
import { KeptWith } from './kept-with.js';
import { ADDRESS_FIELDS, displayPath, extraMembers, memberOf, modelOf, schemaProblems, stringAt } from './model.js';
import type { CheckoutSetUp } from './state.js';
import { rootProblems, type XmlElement, XSI_NAMESPACE } from './xml.js';

// What a checkout's documents say by themselves: a set-up's casing, and an answer's casing, nil
// Tax, shape, members the description does not name, Status, PaymentUrl, Country and the set-up it
// states. The same document read again (a client sends the same set-up, polls and gets the same
// answer) is judged the same, so the reading is kept with the document and only its findings are
// copied into each exchange.

export const KNOWN_PAYMENT_STATUSES = ['Open', 'Successful', 'Cancelled', 'Failed'];

/**
 * `read`, with what it made of each document kept with the document, once for each of `kinds`
 * (the side it was sent on, or the request it answered).
 */
function keptPerDocument<K extends string, V>(
  name: string,
  read: (document: Document, kind: K) => V,
): (document: Document, kind: K) => V {
  const kept = new KeptWith<Document, Partial<Record<K, V>>>(name);
  return (document, kind) => {
    let readings = kept.get(document);
    if (!readings) {
      readings = {};
      kept.set(document, readings);
    }
    let reading: V | undefined = readings[kind];
    if (reading === undefined) {
      reading = read(document, kind);
      readings[kind] = reading;
    }
    return reading;
  };
}

/** Casing findings of documents read before, by side: a client sends the same set-up again and again. */
const casingOf = keptPerDocument('casing', (document: Document, side: 'request' | 'response') => {
  const reading = new Judging('other');
  findCasing(document, side, reading);
  return reading.items;
});

export function checkCasing(document: Document, side: 'request' | 'response', out: Judging): void {
  for (const violation of casingOf(document, side)) out.items.push({ ...violation });
}

function findCasing(document: Document, side: 'request' | 'response', out: Judging): void {
  if (document.format === 'json') {
    for (const path of jsonNamesNotLowerCase(document.value)) {
      out.add('checkout.json.casing', side, `${side} property ${path} does not start lower-case`, path);
    }
  } else {
    for (const path of xmlNamesNotPascalCase(document.root)) {
      out.add('checkout.xml.casing', side, `${side} element ${path} is not PascalCase`, path);
    }
    for (const problem of rootProblems(document.root, 'Checkout'))
      out.add('checkout.xml.root', side, `${side} ${problem}`);
  }
}

export function setUpOf(model: unknown): CheckoutSetUp {
  const address: Record<string, string> = {};
  // The address is found once and its fields read from it, not each walked to from the root.
  const found = memberOf(memberOf(model, 'billing'), 'address');
  for (const field of ADDRESS_FIELDS) {
    const value = memberOf(found, field);
    if (typeof value === 'string') address[field] = value;
  }
  const returnUrl = memberOf(model, 'returnUrl');
  return typeof returnUrl === 'string' ? { returnUrl, address } : { address };
}

/** What stands in for Tax when an element of that local name is in a namespace. */
function foreignTaxMessage(root: XmlElement): string | undefined {
  const foreign = root.children.find((child) => child.local === 'Tax');
  return foreign
    ? `XML checkout has no <Tax> in no namespace under the root: <${foreign.name}> is in namespace ${foreign.namespace ?? '(none)'}`
    : undefined;
}

function checkTax(document: Document, out: Judging): void {
  if (document.format === 'json') {
    const value = document.value;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const tax = Object.keys(value).find((key) => key.toLowerCase() === 'tax');
      if (tax !== undefined)
        out.add('checkout.json.no-tax', 'response', `JSON checkout has a "${tax}" member`, `/${tax}`);
    }
    return;
  }
  // Tax is the element of that name in no namespace, as every member of the checkout is (or in its
  // root's, where checkout.xml.root finds one on the whole document): an <xsi:Tax>, or a Tax under a
  // default namespace of its own, is another element, which a reader binding Tax skips.
  const isTax = (child: XmlElement) =>
    child.local === 'Tax' && (child.namespace === undefined || child.namespace === document.root.namespace);
  const taxes = document.root.children.filter(isTax);
  const tax = taxes[0];
  if (!tax) {
    out.add(
      'checkout.xml.tax-nil',
      'response',
      foreignTaxMessage(document.root) ?? 'XML checkout has no <Tax> element under the root',
    );
    return;
  }
  if (taxes.length > 1) {
    // A reader keeps one of them, first or last: only one nil Tax says what the description says.
    out.add(
      'checkout.xml.tax-nil',
      'response',
      `XML checkout has ${taxes.length} <Tax> elements under the root; exactly one, nil, is expected`,
      '/Tax',
    );
  }
  const nilAttributes = tax.attributes.filter((attr) => attr.local === 'nil');
  const xsiNil = nilAttributes.find((attr) => attr.namespace === XSI_NAMESPACE);
  if (!xsiNil) {
    const foreign = nilAttributes[0];
    out.add(
      'checkout.xml.tax-nil',
      'response',
      foreign
        ? `<Tax> carries ${foreign.name}="${foreign.value}" in namespace ${foreign.namespace ?? '(none)'}, not ${XSI_NAMESPACE}`
        : '<Tax> has no nil attribute in the XMLSchema-instance namespace',
      '/Tax',
    );
  } else if (!['true', '1'].includes(xsiNil.value.trim())) {
    out.add(
      'checkout.xml.tax-nil',
      'response',
      `<Tax> carries ${xsiNil.name}="${xsiNil.value}", expected "true"`,
      '/Tax',
    );
  }
  if (tax.children.length > 0 || tax.text.trim() !== '') {
    out.add('checkout.xml.tax-nil', 'response', '<Tax> is nil but not empty', '/Tax');
  }
}

// An absolute http(s) URI as RFC 3986 writes it, with the non-empty host that RFC 9110 §4.2 asks
// of one: no white space, no control character, no character outside the URI syntax, and every
// "%" the start of an escape. WHATWG's URL parser repairs what this refuses (it drops tabs and
// newlines and reads "http:///x" as host x): a client that is not a browser is not so kind.
const UNRESERVED_SUB_DELIMS = "A-Za-z0-9\\-._~!$&'()*+,;=";
const PCT_ENCODED = '%[0-9A-Fa-f]{2}';
const REG_NAME = `(?:[${UNRESERVED_SUB_DELIMS}]|${PCT_ENCODED})+`;
const IP_LITERAL = `\\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\\.[${UNRESERVED_SUB_DELIMS}:]+)\\]`;
const USERINFO = `(?:(?:[${UNRESERVED_SUB_DELIMS}:]|${PCT_ENCODED})*@)?`;
const PCHARS = `(?:[${UNRESERVED_SUB_DELIMS}:@/]|${PCT_ENCODED})*`;
const QUERY_CHARS = `(?:[${UNRESERVED_SUB_DELIMS}:@/?]|${PCT_ENCODED})*`;
const HTTP_URI = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://${USERINFO}(?:${IP_LITERAL}|${REG_NAME})(?::(\\d*))?(?:/${PCHARS})?(?:\\?${QUERY_CHARS})?(?:#${QUERY_CHARS})?$`,
);

/** Why a PaymentUrl is not an absolute http(s) URI with a host, or undefined when it is one. */
export function paymentUrlProblem(answered: string): string | undefined {
  // A recording's mask stands for characters of the URL (a token in its path or query).
  const value = answered.includes(SECRET_MASK) ? answered.replaceAll(SECRET_MASK, 'masked') : answered;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  const unfit = /[\s\u0000-\u001f\u007f]/.exec(value);
  if (unfit)
    return `it holds ${JSON.stringify(unfit[0])} at ${unfit.index}: no white space or control character belongs in a URL`;
  if (!/^https?:/i.test(value)) return 'it is not an absolute http(s) URL';
  if (/^https?:(?!\/\/)/i.test(value)) return 'it has no "//" authority after the scheme';
  if (/^https?:\/\/(?:[^/?#@]*@)?(?::\d*)?(?:[/?#]|$)/i.test(value)) return 'its host is empty';
  const match = HTTP_URI.exec(value);
  if (!match) return 'it is not a URI as RFC 3986 writes one (a character outside the URI syntax, or a stray "%")';
  if (!portInRange(match[1] || undefined)) return 'its port is out of range';
  return undefined;
}

/** What one answer's document says, for a POST (a fresh set-up) or a GET. */
export interface AnswerReading {
  /** The findings, with their rule's severity, to be copied into each exchange that answered so. */
  found: Judging['items'];
  statusMember: boolean;
  paymentUrlMember: boolean;
  countryMember: boolean;
  countryMasked: boolean;
  shapeMasked: boolean;
  /** The set-up the answer states, to be compared with what was sent. */
  answered: CheckoutSetUp;
}

/** Readings of documents, for a POST and for a GET: a document is only judged again when it is another. */
const readingOf = keptPerDocument('answer reading', (document: Document, request: 'POST' | 'GET') =>
  readAnswer(document, request === 'POST'),
);

export function readCheckoutAnswer(document: Document, isPost: boolean): AnswerReading {
  return readingOf(document, isPost ? 'POST' : 'GET');
}

/** Copies a reading's findings and facts into the judging of one exchange; the stated set-up back. */
export function applyAnswerReading(reading: AnswerReading, out: Judging): CheckoutSetUp {
  for (const violation of reading.found) out.items.push({ ...violation });
  if (reading.statusMember) out.facts.statusMember = true;
  if (reading.paymentUrlMember) out.facts.paymentUrlMember = true;
  if (reading.countryMember) out.facts.countryMember = true;
  if (reading.countryMasked) out.facts.countryMasked = true;
  if (reading.shapeMasked) out.facts.responseShapeMasked = true;
  return reading.answered;
}

function readAnswer(document: Document, isPost: boolean): AnswerReading {
  const out = new Judging('other');
  const shapeRule: RuleId = isPost ? 'checkout.response.schema' : 'checkout.get.shape';
  findCasing(document, 'response', out);
  checkTax(document, out);

  const model = modelOf(document, 'checkout');
  const shapeMasked = () => {
    out.facts.responseShapeMasked = true;
  };
  for (const problem of schemaProblems(model, 'checkout', document.format, shapeMasked)) {
    const path = displayPath(problem.path, document.format);
    out.add(shapeRule, 'response', problem.message, path);
  }
  const extra = extraMembers(model, schemas.checkout).map((path) => displayPath(path, document.format));
  if (extra.length > 0) {
    out.add(
      'checkout.response.extra',
      'response',
      `members the description does not name: ${extra.join(', ')}`,
      extra[0],
    );
  }

  // A value a recording masked whole is no evidence for a rule about it (see isMasked).
  const given = (pointer: string, whole: (value: string) => boolean = isMaskedWhole) => {
    const value = stringAt(model, pointer);
    return value === undefined || whole(value) ? undefined : value;
  };
  const status = given('/status', isMasked);
  if (status !== undefined) out.facts.statusMember = true;
  if (isPost && status !== undefined && status !== 'Open') {
    out.add(
      'checkout.status.open',
      'response',
      `a fresh set-up answered Status "${status}", expected "Open"`,
      displayPath('/status', document.format),
    );
  }
  if (status !== undefined && !KNOWN_PAYMENT_STATUSES.includes(status)) {
    out.add(
      'checkout.status.known',
      'response',
      `Status "${status}" is not one of ${KNOWN_PAYMENT_STATUSES.join(', ')}`,
      displayPath('/status', document.format),
    );
  }

  // Masked in part (a token), a PaymentUrl is still judged as a URL (paymentUrlProblem).
  const paymentUrl = given('/paymentUrl');
  if (paymentUrl !== undefined) out.facts.paymentUrlMember = true;
  const paymentProblem = paymentUrl === undefined ? undefined : paymentUrlProblem(paymentUrl);
  if (paymentProblem) {
    out.add(
      'checkout.payment-url',
      'response',
      `PaymentUrl ${JSON.stringify(paymentUrl)} is not an absolute http(s) URL: ${paymentProblem}`,
      displayPath('/paymentUrl', document.format),
    );
  }

  const country = given('/billing/address/country', isMasked);
  if (country !== undefined) out.facts.countryMember = true;
  else if (stringAt(model, '/billing/address/country') !== undefined) out.facts.countryMasked = true;
  if (country !== undefined && !isCountryCode(country)) {
    out.add(
      'checkout.country-code',
      'response',
      `Country "${country}" is not a two-letter upper-case code`,
      displayPath('/billing/address/country', document.format),
    );
  }

  return {
    found: out.items,
    statusMember: out.facts.statusMember === true,
    paymentUrlMember: out.facts.paymentUrlMember === true,
    countryMember: out.facts.countryMember === true,
    countryMasked: out.facts.countryMasked === true,
    shapeMasked: out.facts.responseShapeMasked === true,
    answered: setUpOf(model),
  };
}
