import { propertiesOf, schemas } from '../contract/schemas.js';
import { applyAnswerReading, checkCasing, readCheckoutAnswer, setUpOf } from './checkout-answer.js';
import { checkCheckoutRequest } from './checkout-request.js';
import type { Document } from './document.js';
import { type Exchange, isMasked } from './exchange.js';
import type { ReadBodies } from './format.js';
import type { Judging } from './judging.js';
import { displayPath, modelOf, stringAt } from './model.js';
import type { CheckoutSetUp, CheckoutState } from './state.js';

// Rules of POST and GET checkout/{code}.

const returnUrlSchema = propertiesOf(schemas['checkout-request']).get('returnUrl') ?? {};
export const RETURN_URL_MIN = returnUrlSchema.minLength ?? 0;
export const RETURN_URL_MAX = returnUrlSchema.maxLength ?? Number.POSITIVE_INFINITY;

/** Length as .NET counts a string: UTF-16 code units, which is what JavaScript's length is. */
export function returnUrlLengthOk(value: string): boolean {
  return value.length >= RETURN_URL_MIN && value.length <= RETURN_URL_MAX;
}

/** Whether the exchange broke a must rule on `side` so far. */
function breaksMustRule(out: Judging, side: 'request' | 'response'): boolean {
  return out.items.some((violation) => violation.side === side && violation.severity === 'must');
}

/**
 * Answers that refuse what a set-up says, as against where it was sent or who sent it: an unknown
 * or stale code (404, 410), credentials (401, 403: also "not allowed in the current state" on the
 * real service), a method or a conflict with the order's state are no judgement of the set-up.
 */
function refusesContent(status: number): boolean {
  return status === 400 || status === 406 || status === 413 || status === 415 || status === 422 || status >= 500;
}

/**
 * A set-up that breaks no must rule, refused all the same: a service that does not take the request
 * as its writer wrote it (format.xml-request, format.json-request), and, when its ReturnUrl lies in
 * range, one that miscounts it (checkout.return-url.length). Traffic shows these; the suite's own probes say them more exactly.
 */
function refusedSetUp(read: ReadBodies, requestModel: unknown, status: number, out: Judging): void {
  const format = read.requestFormat;
  if (format === 'xml' || format === 'json') {
    out.add(
      format === 'xml' ? 'format.xml-request' : 'format.json-request',
      'response',
      `a well-formed ${format.toUpperCase()} checkout set-up that breaks no must rule was answered ${status}`,
    );
  }
  const returnUrl = stringAt(requestModel, '/returnUrl');
  if (returnUrl !== undefined && !isMasked(returnUrl) && status < 500) {
    out.add(
      'checkout.return-url.length',
      'response',
      `the service refused (${status}) a set-up whose ReturnUrl has ${returnUrl.length} UTF-16 code units, inside ${RETURN_URL_MIN}..${RETURN_URL_MAX}, and that breaks no must rule`,
      read.request ? displayPath('/returnUrl', read.request.format) : undefined,
    );
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
  // A ReturnUrl a recording masked in part has a length nobody knows: it is not judged, and a
  // refusal of its set-up is not the service's fault to find.
  let returnUrlMasked = false;
  if (isPost && read.request) {
    checkCasing(read.request, 'request', out);
    requestModel = modelOf(read.request, 'checkout-request');
    checkCheckoutRequest(requestModel, read.request.format, out);
    const sentUrl = stringAt(requestModel, '/returnUrl');
    returnUrlMasked = sentUrl !== undefined && isMasked(sentUrl);
    const returnUrl = returnUrlMasked ? undefined : sentUrl;
    if (returnUrl !== undefined) out.facts.returnUrlSent = true;
    if (returnUrlMasked) out.facts.returnUrlMasked = true;
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
  const sound = isPost && read.request !== undefined && !returnUrlMasked && !breaksMustRule(out, 'request');
  // Evidence that the service takes sound set-ups comes only from answers about the set-up itself.
  if (sound && (!response || response.status < 400 || refusesContent(response.status))) out.facts.requestSound = true;

  if (!response || response.status < 200 || response.status >= 300) {
    if (sound && response && response.status >= 400 && refusesContent(response.status))
      refusedSetUp(read, requestModel, response.status, out);
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
  const earlier = sent ? state.recall(key) : undefined;
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
  const answered = applyAnswerReading(readCheckoutAnswer(document, isPost), out);
  if (sent) {
    for (const { path, text } of differences(sent, answered, document.format)) {
      out.add('checkout.echo', 'response', `${text} (the POST response must echo what was sent)`, path);
    }
    if (earlier)
      for (const { path, text } of keptFromEarlier(sent, earlier, answered, document.format)) {
        out.add('checkout.echo', 'response', text, path);
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

/**
 * Members a set-up left out (valid: the description marks none required) that the answer fills
 * with an earlier set-up's values: a service that merges set-ups instead of replacing them.
 */
function keptFromEarlier(
  sent: CheckoutSetUp,
  earlier: CheckoutSetUp,
  answered: CheckoutSetUp,
  format: Document['format'],
): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = [];
  const kept = (before: string | undefined, now: string | undefined) =>
    now !== undefined && now !== '' && now === before && !isMasked(now);
  const say = (path: string, value: string) =>
    found.push({
      path,
      text: `${path}: not sent, answered ${JSON.stringify(value)}, the value of an earlier set-up (a member left out is not kept from before)`,
    });
  if (sent.returnUrl === undefined && kept(earlier.returnUrl, answered.returnUrl))
    say(displayPath('/returnUrl', format), answered.returnUrl as string);
  for (const field in earlier.address) {
    if (field in sent.address || !kept(earlier.address[field], answered.address[field])) continue;
    say(displayPath(`/billing/address/${field}`, format), answered.address[field] as string);
  }
  return found;
}

/** Members answered otherwise than set, each with its path (for the report's excerpt). */
function differences(
  sent: CheckoutSetUp,
  answered: CheckoutSetUp,
  format: Document['format'],
): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = [];
  const show = (value: string | undefined) => (value === undefined ? 'nothing' : JSON.stringify(value));
  // Two values a recording masked alike may have been different: they are not compared. A mask on
  // one side only is compared as it stands (in a recording both sides are masked by the same
  // names; live, a service that answers the mask's text has not echoed what was sent).
  const differ = (a: string | undefined, b: string | undefined) =>
    a !== b && !(a !== undefined && b !== undefined && isMasked(a) && isMasked(b));
  if (sent.returnUrl !== undefined && differ(sent.returnUrl, answered.returnUrl)) {
    const path = displayPath('/returnUrl', format);
    found.push({ path, text: `${path}: sent ${show(sent.returnUrl)}, answered ${show(answered.returnUrl)}` });
  }
  for (const field in sent.address) {
    const value = sent.address[field];
    if (differ(answered.address[field], value)) {
      const path = displayPath(`/billing/address/${field}`, format);
      found.push({ path, text: `${path}: sent ${show(value)}, answered ${show(answered.address[field])}` });
    }
  }
  return found;
}
