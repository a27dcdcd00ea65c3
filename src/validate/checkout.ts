import { propertiesOf, schemas } from '../contract/schemas.js';
import { jsonNamesNotLowerCase, xmlNamesNotPascalCase } from './casing.js';
import { checkCheckoutRequest, isCountryCode } from './checkout-request.js';
import type { Document } from './document.js';
import { type Exchange, portInRange, SECRET_MASK } from './exchange.js';
import type { ReadBodies } from './format.js';
import type { Judging } from './judging.js';
import { ADDRESS_FIELDS, displayPath, extraMembers, memberOf, modelOf, schemaProblems, stringAt } from './model.js';
import type { CheckoutSetUp, CheckoutState } from './state.js';
import { rootProblems, XSI_NAMESPACE } from './xml.js';

// Rules of POST and GET checkout/{code}.

export const KNOWN_PAYMENT_STATUSES = ['Open', 'Successful', 'Cancelled', 'Failed'];

const returnUrlSchema = propertiesOf(schemas['checkout-request']).get('returnUrl') ?? {};
export const RETURN_URL_MIN = returnUrlSchema.minLength ?? 0;
export const RETURN_URL_MAX = returnUrlSchema.maxLength ?? Number.POSITIVE_INFINITY;

/** Length as .NET counts a string: UTF-16 code units, which is what JavaScript's length is. */
export function returnUrlLengthOk(value: string): boolean {
  return value.length >= RETURN_URL_MIN && value.length <= RETURN_URL_MAX;
}

function checkCasing(document: Document, side: 'request' | 'response', what: string, out: Judging): void {
  if (document.format === 'json') {
    for (const path of jsonNamesNotLowerCase(document.value)) {
      out.add('checkout.json.casing', side, `${what} property ${path} does not start lower-case`, path);
    }
  } else {
    for (const path of xmlNamesNotPascalCase(document.root)) {
      out.add('checkout.xml.casing', side, `${what} element ${path} is not PascalCase`, path);
    }
    for (const problem of rootProblems(document.root, 'Checkout'))
      out.add('checkout.xml.root', side, `${what} ${problem}`);
  }
}

/** Whether the exchange broke a must rule on `side` so far. */
function breaksMustRule(out: Judging, side: 'request' | 'response'): boolean {
  return out.items.some((violation) => violation.side === side && violation.severity === 'must');
}

/**
 * A set-up that breaks no must rule, refused all the same: an XML one is a service that does not
 * take XML (format.xml-request), and one whose ReturnUrl lies in range a service that miscounts it
 * (checkout.return-url.length). Traffic shows these; the suite's own probes say them more exactly.
 */
function refusedSetUp(read: ReadBodies, requestModel: unknown, status: number, out: Judging): void {
  if (read.requestFormat === 'xml') {
    out.add(
      'format.xml-request',
      'response',
      `a well-formed XML checkout set-up that breaks no must rule was answered ${status}`,
    );
  }
  const returnUrl = stringAt(requestModel, '/returnUrl');
  if (returnUrl !== undefined && status < 500) {
    out.add(
      'checkout.return-url.length',
      'response',
      `the service refused (${status}) a set-up whose ReturnUrl has ${returnUrl.length} UTF-16 code units, inside ${RETURN_URL_MIN}..${RETURN_URL_MAX}, and that breaks no must rule`,
      read.request ? displayPath('/returnUrl', read.request.format) : undefined,
    );
  }
}

function setUpOf(model: unknown): CheckoutSetUp {
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
  const taxes = document.root.children.filter((child) => child.local === 'Tax');
  const tax = taxes[0];
  if (!tax) {
    out.add('checkout.xml.tax-nil', 'response', 'XML checkout has no <Tax> element under the root');
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

export function checkCheckout(
  exchange: Exchange,
  read: ReadBodies,
  state: CheckoutState,
  key: string,
  out: Judging,
): void {
  const { request, response } = exchange;
  const method = request.method.toUpperCase();
  const isPost = method === 'POST';
  // A GET of a checkout set up earlier in the traffic could show an inconsistency, answered or not.
  if (!isPost && state.recall(key)) out.facts.getAfterSetUp = true;

  let requestModel: unknown;
  let returnUrlBad = false;
  if (isPost && read.request) {
    checkCasing(read.request, 'request', 'request', out);
    requestModel = modelOf(read.request, 'checkout-request');
    checkCheckoutRequest(requestModel, read.request.format, out);
    const returnUrl = stringAt(requestModel, '/returnUrl');
    if (returnUrl !== undefined) out.facts.returnUrlSent = true;
    if (returnUrl !== undefined && !returnUrlLengthOk(returnUrl)) {
      returnUrlBad = true;
      out.facts.returnUrlOutOfRange = true;
      out.add(
        'checkout.return-url.length',
        'request',
        `ReturnUrl has ${returnUrl.length} UTF-16 code units; allowed ${RETURN_URL_MIN} to ${RETURN_URL_MAX}`,
        displayPath('/returnUrl', read.request.format),
      );
    }
  }

  // A set-up that breaks no must rule is one the service must take: its refusal is the service's fault.
  const sound = isPost && read.request !== undefined && !breaksMustRule(out, 'request');
  if (sound) out.facts.requestSound = true;

  if (!response || response.status < 200 || response.status >= 300) {
    if (sound && response && response.status >= 400) refusedSetUp(read, requestModel, response.status, out);
    return;
  }

  if (returnUrlBad) {
    out.add(
      'checkout.return-url.length',
      'response',
      `the service accepted (${response.status}) a ReturnUrl outside ${RETURN_URL_MIN}..${RETURN_URL_MAX}`,
    );
  }

  // The service took this set-up: a later GET is compared with it, even if its answer does not parse.
  const sent = isPost && requestModel !== undefined ? setUpOf(requestModel) : undefined;
  if (sent) state.remember(key, sent);
  else if (isPost) state.forget(key);

  const shapeRule = isPost ? 'checkout.response.schema' : 'checkout.get.shape';
  const document = read.response;
  if (!document) {
    if (response.body?.skipped) return;
    if (!response.body || response.body.size === 0) {
      out.add(shapeRule, 'response', `${method} checkout answered ${response.status} with no body`);
    }
    return;
  }
  checkCasing(document, 'response', 'response', out);
  checkTax(document, out);

  const model = modelOf(document, 'checkout');
  for (const problem of schemaProblems(model, 'checkout', document.format)) {
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

  const status = stringAt(model, '/status');
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

  const paymentUrl = stringAt(model, '/paymentUrl');
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

  const country = stringAt(model, '/billing/address/country');
  if (country !== undefined) out.facts.countryMember = true;
  if (country !== undefined && !isCountryCode(country)) {
    out.add(
      'checkout.country-code',
      'response',
      `Country "${country}" is not a two-letter upper-case code`,
      displayPath('/billing/address/country', document.format),
    );
  }

  const answered = setUpOf(model);
  if (sent) {
    for (const { path, text } of differences(sent, answered, document.format)) {
      out.add('checkout.echo', 'response', `${text} (the POST response must echo what was sent)`, path);
    }
  } else if (!isPost) {
    const setUp = state.recall(key);
    if (setUp) {
      out.facts.afterPost = true;
      for (const { path, text } of differences(setUp, answered, document.format)) {
        out.add('checkout.get.consistent', 'response', `${text} (set by the earlier POST)`, path);
      }
    }
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
/** Members answered otherwise than set, each with its path (for the report's excerpt). */
function differences(
  sent: CheckoutSetUp,
  answered: CheckoutSetUp,
  format: Document['format'],
): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = [];
  const show = (value: string | undefined) => (value === undefined ? 'nothing' : JSON.stringify(value));
  if (sent.returnUrl !== undefined && sent.returnUrl !== answered.returnUrl) {
    const path = displayPath('/returnUrl', format);
    found.push({ path, text: `${path}: sent ${show(sent.returnUrl)}, answered ${show(answered.returnUrl)}` });
  }
  for (const field in sent.address) {
    const value = sent.address[field];
    if (answered.address[field] !== value) {
      const path = displayPath(`/billing/address/${field}`, format);
      found.push({ path, text: `${path}: sent ${show(value)}, answered ${show(answered.address[field])}` });
    }
  }
  return found;
}
