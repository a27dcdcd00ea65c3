import { REDACTED, redactHeaders, redactText } from '../src/http/redact.js';
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

/** Cheap test before parsing: most bodies name no secret member at all. */
function mentionsAny(text: string, members: Set<string>): boolean {
  const lower = text.toLowerCase();
  for (const member of members) if (lower.includes(`"${member}"`)) return true;
  return false;
}

function redactBody(
  body: RecordedBody | undefined,
  contentType: string | undefined,
  members: Set<string>,
): RecordedBody | undefined {
  if (!body || body.text === undefined || body.text === '') return body;
  let text = body.text;
  if (/x-www-form-urlencoded/i.test(contentType ?? '')) {
    const form = new URLSearchParams(text);
    for (const key of [...form.keys()]) if (members.has(key.toLowerCase())) form.set(key, REDACTED);
    text = form.toString();
  } else if ((/json/i.test(contentType ?? '') || /^\s*[{[]/.test(text)) && mentionsAny(text, members)) {
    try {
      const value = JSON.parse(text);
      const redacted = JSON.stringify(redactJson(value, members));
      // Keep the original bytes when nothing was secret, so recordings show bodies as sent.
      if (redacted !== JSON.stringify(value)) text = redacted;
    } catch {
      // Not JSON after all: leave it as it is.
    }
  }
  return { ...body, text: redactText(text) };
}

export function redactExchange(exchange: Exchange, options: RedactionOptions): Exchange {
  const members = new Set([...SECRET_MEMBERS, ...options.members].map((m) => m.toLowerCase()));
  const out: Exchange = {
    ...exchange,
    request: {
      ...exchange.request,
      url: redactText(exchange.request.url),
      headers: redactHeaders(exchange.request.headers, options.headers),
    },
  };
  const requestBody = redactBody(exchange.request.body, header(exchange.request.headers, 'content-type'), members);
  if (requestBody) out.request.body = requestBody;
  if (exchange.response) {
    out.response = { ...exchange.response, headers: redactHeaders(exchange.response.headers, options.headers) };
    const responseBody = redactBody(exchange.response.body, header(exchange.response.headers, 'content-type'), members);
    if (responseBody) out.response.body = responseBody;
  }
  return out;
}
