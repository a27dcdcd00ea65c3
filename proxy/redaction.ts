import { headerRedactor, REDACTED, redactText } from '../src/http/redact.js';
import type { Exchange, RecordedBody } from '../src/validate/exchange.js';
import { header } from '../src/validate/exchange.js';

// Nothing secret reaches a recording, a HAR file or a log: headers, OAuth form fields, token
// members of JSON answers and secrets in URLs' queries are replaced before anything is written.

const SECRET_MEMBERS = ['access_token', 'refresh_token', 'id_token', 'client_secret', 'password'];

export interface RedactionOptions {
  headers: string[];
  members: string[];
}

function redactJson(value: unknown, members: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => redactJson(item, members));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [
        key,
        members.has(key.toLowerCase()) ? REDACTED : redactJson(child, members),
      ]),
    );
  }
  return value;
}

function redactBody(
  body: RecordedBody | undefined,
  contentType: string | undefined,
  members: Set<string>,
  mentions: RegExp,
): RecordedBody | undefined {
  if (!body || body.text === undefined || body.text === '') return body;
  let text = body.text;
  if (/x-www-form-urlencoded/i.test(contentType ?? '')) {
    const form = new URLSearchParams(text);
    for (const key of [...form.keys()]) if (members.has(key.toLowerCase())) form.set(key, REDACTED);
    text = form.toString();
  } else if ((/json/i.test(contentType ?? '') || /^\s*[{[]/.test(text)) && mentions.test(text)) {
    try {
      const value = JSON.parse(text);
      const redacted = JSON.stringify(redactJson(value, members));
      // Keep the original bytes when nothing was secret, so recordings show bodies as sent.
      if (redacted !== JSON.stringify(value)) text = redacted;
    } catch {
      // Not JSON after all: leave it as it is.
    }
  }
  text = redactText(text);
  return text === body.text ? body : { ...body, text };
}

/**
 * Redacts exchanges before they are written. Its names are settled once, and an exchange that
 * holds no secret is returned as it is: the proxy runs this for every exchange it records.
 */
export function exchangeRedactor(options: RedactionOptions): (exchange: Exchange) => Exchange {
  const members = new Set([...SECRET_MEMBERS, ...options.members].map((m) => m.toLowerCase()));
  // Cheap test before parsing: most bodies name no secret member at all.
  const mentions = new RegExp(
    `"(?:${[...members].map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})"`,
    'i',
  );
  const redactHeaders = headerRedactor(options.headers);
  return (exchange) => {
    const { request, response } = exchange;
    const url = redactText(request.url);
    const requestHeaders = redactHeaders(request.headers);
    const requestBody = redactBody(request.body, header(request.headers, 'content-type'), members, mentions);
    const responseHeaders = response && redactHeaders(response.headers);
    const responseBody =
      response && redactBody(response.body, header(response.headers, 'content-type'), members, mentions);
    const requestSame = url === request.url && requestHeaders === request.headers && requestBody === request.body;
    const responseSame = !response || (responseHeaders === response.headers && responseBody === response.body);
    if (requestSame && responseSame) return exchange;
    const out: Exchange = { ...exchange, request: { ...request, url, headers: requestHeaders } };
    if (requestBody) out.request.body = requestBody;
    if (response) {
      out.response = { ...response, headers: responseHeaders ?? response.headers };
      if (responseBody) out.response.body = responseBody;
    }
    return out;
  };
}
