import { propertiesOf, schemas } from '../contract/schemas.js';
import { jsonNamesNotLowerCase, xmlNamesNotPascalCase } from './casing.js';
import { checkCheckoutRequest, isCountryCode } from './checkout-request.js';
import type { Document } from './document.js';
import { type Exchange, portInRange } from './exchange.js';
import type { ReadBodies } from './format.js';
import type { Judging } from './judging.js';
import { ADDRESS_FIELDS, displayPath, extraMembers, memberOf, modelOf, schemaProblems, stringAt } from './model.js';
import type { CheckoutSetUp, CheckoutState } from './state.js';
import { XSI_NAMESPACE } from './xml.js';

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
    if (document.root.local !== 'Checkout') {
      out.add('checkout.xml.root', side, `${what} root element is <${document.root.name}>, expected <Checkout>`);
    }
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
  const tax = document.root.children.find((child) => child.local === 'Tax');
  if (!tax) {
    out.add('checkout.xml.tax-nil', 'response', 'XML checkout has no <Tax> element under the root');
    return;
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

  if (!response || response.status < 200 || response.status >= 300) {
    if (isPost && response && read.requestFormat === 'xml' && read.request && !returnUrlBad) {
      if (response.status === 415 || response.status === 406) {
        out.add('format.xml-request', 'response', `a well-formed XML checkout request was answered ${response.status}`);
      }
    }
    return;
  }

  if (returnUrlBad) {
    out.add(
      'checkout.return-url.length',
      'response',
      `the service accepted (${response.status}) a ReturnUrl outside ${RETURN_URL_MIN}..${RETURN_URL_MAX}`,
    );
  }

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
  if (paymentUrl !== undefined && !isAbsoluteHttpUrl(paymentUrl)) {
    out.add(
      'checkout.payment-url',
      'response',
      `PaymentUrl "${paymentUrl}" is not an absolute http(s) URL`,
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
  if (isPost && requestModel !== undefined) {
    const sent = setUpOf(requestModel);
    for (const { path, text } of differences(sent, answered, document.format)) {
      out.add('checkout.echo', 'response', `${text} (the POST response must echo what was sent)`, path);
    }
    state.remember(key, sent);
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

/** An http(s) URL with a plain host name, a port and nothing a URL parser would have to judge. */
const PLAIN_HTTP_URL = /^https?:\/\/[A-Za-z0-9.-]+(?::(\d{1,5}))?(?:[/?][A-Za-z0-9\-._~!$&()*+,;=:@/?%]*)?$/;

function isAbsoluteHttpUrl(value: string): boolean {
  const plain = PLAIN_HTTP_URL.exec(value);
  if (plain && portInRange(plain[1])) return true;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
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
