import { type Exchange, isHttpStatus, type RecordedBody } from '../validate/exchange.js';

// What a recorded exchange must look like before any rule reads it. Recordings come from the
// proxy, from other tools and from hand edits: a field of another type (a number for a body's
// text, a status of 99999, a list for the headers) would otherwise reach the rules, which would
// throw a JavaScript error or, worse, judge it (a status of "200" read as no 2xx). Such a line is
// skipped with a warning that names the field, the same in validate, replay and the base lookup.

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why `status` is not an HTTP status an answer can have, or undefined when it is one. */
export function statusFlaw(status: unknown, field: string): string | undefined {
  if (typeof status !== 'number') return `${field} is not a number`;
  if (!isHttpStatus(status)) return `${field} ${status} is not an HTTP status (100-599)`;
  return undefined;
}

function headersFlaw(headers: unknown, field: string): string | undefined {
  if (headers === undefined) return undefined;
  if (!isObject(headers)) return `${field} is not an object of names and values`;
  for (const name in headers) {
    if (typeof headers[name] !== 'string') return `${field}[${JSON.stringify(name)}] is not a string`;
  }
  return undefined;
}

/** The first of a body's text fields that holds something other than a string, in this order. */
function notStringField(body: Record<string, unknown>): string | undefined {
  // Each read by its own name: a loop over the names read each by a name that varied, at every body.
  const { text, base64, sha256, headBase64, skipped, codingError } = body;
  if (text !== undefined && typeof text !== 'string') return 'text';
  if (base64 !== undefined && typeof base64 !== 'string') return 'base64';
  if (sha256 !== undefined && typeof sha256 !== 'string') return 'sha256';
  if (headBase64 !== undefined && typeof headBase64 !== 'string') return 'headBase64';
  if (skipped !== undefined && typeof skipped !== 'string') return 'skipped';
  if (codingError !== undefined && typeof codingError !== 'string') return 'codingError';
  return undefined;
}

function bodyFlaw(body: unknown, field: string): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (!isObject(body)) return `${field} is not an object`;
  if (body.size !== undefined && (typeof body.size !== 'number' || !(body.size >= 0)))
    return `${field}.size is not a number of bytes`;
  const notString = notStringField(body);
  if (notString) return `${field}.${notString} is not a string`;
  if (body.parts !== undefined) {
    if (!Array.isArray(body.parts)) return `${field}.parts is not a list`;
    if (!body.parts.every((part) => isObject(part) && typeof part.size === 'number'))
      return `${field}.parts holds a part without a size`;
  }
  return undefined;
}

/**
 * Why a parsed NDJSON line cannot stand for an exchange, or undefined when it can. A line that can
 * is made ready for the rules: headers absent are read as none, a body without its size is given
 * the size of its text. (Header names in another case are read as they are: the core asks for
 * headers by name in any case.)
 */
export function flawOfRecordedExchange(value: unknown): string | undefined {
  if (!isObject(value)) return 'it is not an object';
  const { request, response } = value;
  if (!isObject(request)) return 'it has no request';
  if (typeof request.method !== 'string' || request.method === '') return 'request.method is not a string';
  if (typeof request.url !== 'string') return 'request.url is not a string';
  const flaw =
    headersFlaw(request.headers, 'request.headers') ??
    bodyFlaw(request.body, 'request.body') ??
    (response === undefined || response === null
      ? undefined
      : !isObject(response)
        ? 'response is not an object'
        : (statusFlaw(response.status, 'response.status') ??
          headersFlaw(response.headers, 'response.headers') ??
          bodyFlaw(response.body, 'response.body')));
  if (flaw) return flaw;
  ready(value as unknown as Exchange);
  return undefined;
}

/** A body without its size (a hand-made line) is given the size of its text, as the proxy counts it. */
function sized(body: RecordedBody): void {
  if (body.size === undefined && body.text !== undefined) body.size = Buffer.byteLength(body.text);
}

function ready(exchange: Exchange): void {
  const request = exchange.request as Omit<Exchange['request'], 'body'> & { body?: RecordedBody | null };
  request.headers ??= {};
  if (request.body === null) delete request.body;
  else if (request.body) sized(request.body);
  const response = exchange.response as (Exchange['response'] & { body?: RecordedBody | null }) | null | undefined;
  if (response === null) delete exchange.response;
  if (!response) return;
  response.headers ??= {};
  if (response.body === null) delete response.body;
  else if (response.body) sized(response.body);
}
