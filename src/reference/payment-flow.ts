import type { IncomingMessage, ServerResponse } from 'node:http';
import { fromAnotherSite, type SiteHeaders } from '../http/request-site.js';
import {
  outcomeWithoutReturn,
  type PaymentPage,
  type PaymentView,
  paymentForm,
  paymentFromElsewhere,
  paymentMethodNotAllowed,
  paymentNotSetUp,
  paymentOver,
  paymentSuperseded,
  paymentUnknown,
} from './payment-page.js';
import { readSmallBody } from './request-body.js';
import type { CheckoutRecord, ReferenceStore } from './store.js';

// The payment step of the checkout flow (seed §1): the client redirects the customer's browser to
// PaymentUrl (`payments/<id>/start`); the page's forms post one outcome (`pay`, `cancel`, `fail`),
// which moves the checkout's Status from Open and sends the browser back to the ReturnUrl with a 303.
// The same posts work from curl or a test's HTTP client: a form post needs no browser.

export const OUTCOMES = { pay: 'Successful', cancel: 'Cancelled', fail: 'Failed' } as const;
type Action = 'start' | keyof typeof OUTCOMES;

const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The ReturnUrl as a Location header: exactly as the client sent it, but for the characters a header
 * cannot carry as they are (non-ASCII, spaces), which are percent-encoded as UTF-8 the way a browser
 * encodes them when it follows the URL (RFC 3987 §3.1). `%20`, `&` and the fragment stay untouched.
 * Undefined when the ReturnUrl is not an absolute http(s) URL a browser could be sent to.
 */
export function redirectLocation(returnUrl: string): string | undefined {
  if (!/^https?:\/\/[^/?#\s]/i.test(returnUrl) || !URL.canParse(returnUrl)) return undefined;
  return returnUrl.replace(/[^\x21-\x7e]/gu, (character) =>
    [...Buffer.from(character, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

function write(response: ServerResponse, { status, html }: PaymentPage, headers: Record<string, string> = {}): void {
  const body = Buffer.from(html, 'utf8');
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': body.length,
    // Nothing runs on these pages; posting a form and following its redirect stay allowed. No
    // other site may frame them, where a click could be taken for another (clickjacking).
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(body);
}

export interface PaymentFlowOptions {
  /** The payment-fails fault: the pay button ends in Failed, as a declined card would. */
  declinePayments: boolean;
  /** The host (and port) of the public URL, when the service is reached by one: a page's own origin too. */
  publicHost?: string;
  /** Told after the payment's status moved (serve's webhooks follow it). */
  onStatusChange?: (orderId: string) => void;
}

/**
 * Whether an outcome's POST comes from another site: a page elsewhere must not end a customer's
 * payment through their browser (a cross-site form post).
 */
export function postedFromElsewhere(request: IncomingMessage, publicHost: string | undefined): boolean {
  return fromAnotherSite(request.headers as SiteHeaders, [publicHost]);
}

/** Whether a path's segments (below the base) are the payment screen's: `payments/<id>/<action>`. */
export function isPaymentPath(segments: string[]): boolean {
  return segments[0] === 'payments' && segments.length === 3;
}

/** Answers one request of the payment screen with an HTML page or a redirect; never throws. */
export async function answerPayment(
  request: IncomingMessage,
  response: ServerResponse,
  store: ReferenceStore,
  segments: string[],
  options: PaymentFlowOptions,
): Promise<void> {
  const [, paymentId = '', given = ''] = segments;
  const method = request.method ?? 'GET';
  if (method === 'POST') {
    // A form's fields carry nothing the outcome needs; read them so that the connection stays usable.
    try {
      await readSmallBody(request, FORM_BODY_LIMIT);
    } catch {
      request.resume();
    }
  } else request.resume();

  // Own keys only: `toString` or `constructor` in a URL are no outcome.
  const action: Action | undefined =
    given === 'start' || Object.hasOwn(OUTCOMES, given) ? (given as Action) : undefined;
  const code = store.payments.get(paymentId);
  const record = code === undefined ? undefined : store.checkouts.get(code);
  if (!action || !record) return write(response, paymentUnknown());
  const allowed = action === 'start' ? 'GET' : 'POST';
  if (method !== allowed && !(action === 'start' && method === 'HEAD'))
    return write(response, paymentMethodNotAllowed(allowed), { allow: allowed });
  if (record.paymentId !== paymentId) return write(response, paymentSuperseded());
  if (!record.setUp) return write(response, paymentNotSetUp());
  if (record.status !== 'Open') return write(response, paymentOver(record.status));

  if (action === 'start') return write(response, paymentForm(viewOf(record, options)));
  if (postedFromElsewhere(request, options.publicHost)) return write(response, paymentFromElsewhere());
  record.status = action === 'pay' && options.declinePayments ? OUTCOMES.fail : OUTCOMES[action];
  options.onStatusChange?.(record.orderId);
  const location = record.returnUrl === undefined ? undefined : redirectLocation(record.returnUrl);
  if (location === undefined) return write(response, outcomeWithoutReturn(record.status, record.returnUrl));
  response.writeHead(303, { location, 'content-length': 0, 'cache-control': 'no-store' });
  response.end();
}

function viewOf(record: CheckoutRecord, options: PaymentFlowOptions): PaymentView {
  return {
    orderId: record.orderId,
    checkoutCode: record.code,
    amount: record.amount,
    returnUrl: record.returnUrl,
    declines: options.declinePayments,
  };
}

/**
 * Ends a checkout's payment step as the page's buttons would, without a browser (the control API's
 * POST payments/{code}): `code` is the checkout's code or its payment's id.
 */
export function settlePayment(
  store: ReferenceStore,
  code: string,
  outcome: string,
  declinePayments: boolean,
  onStatusChange?: (orderId: string) => void,
): { status: number; headers: Record<string, string>; body: string } {
  const answer = (status: number, value: unknown) => ({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: `${JSON.stringify(value)}\n`,
  });
  const outcomes: readonly string[] = Object.values(OUTCOMES);
  if (!outcomes.includes(outcome))
    return answer(400, { message: `print-conformance: outcome must be one of ${outcomes.join(', ')}` });
  const record = store.checkouts.get(code) ?? store.checkouts.get(store.payments.get(code) ?? '');
  if (!record) return answer(404, { message: `print-conformance: no checkout or payment ${code}` });
  if (!record.setUp) return answer(409, { message: 'print-conformance: the checkout has not been set up' });
  if (record.status !== 'Open')
    return answer(409, { message: `print-conformance: the payment is over (${record.status})` });
  record.status = (outcome === OUTCOMES.pay && declinePayments ? OUTCOMES.fail : outcome) as CheckoutRecord['status'];
  onStatusChange?.(record.orderId);
  return answer(200, { checkout: record.code, status: record.status, returnUrl: record.returnUrl ?? null });
}
