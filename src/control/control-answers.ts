// The shapes a control answer takes (JSON, a problem in the tool's words, the live page under its
// content security policy): shared by the API's routes and its downloads, so that every answer of
// the control API carries the same headers wherever it is made.

export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Text (sent as UTF-8), or bytes as they are (a kept request body). */
  body: string | Buffer;
}

export function json(status: number, value: unknown): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    body: `${JSON.stringify(value, null, 2)}\n`,
  };
}

export function problem(status: number, message: string): Answer {
  return json(status, { message: `print-conformance: ${message}` });
}

export function html(body: string, nonce: string): Answer {
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // Traffic on the page is inert: no script runs but the page's own, nothing loads from outside.
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
    body,
  };
}
