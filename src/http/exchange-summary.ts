import type { ExchangeSummary } from '../findings/types.js';
import type { Exchange, RecordedBody } from '../validate/exchange.js';
import { redactHeaders, redactText } from './redact.js';

const TRIM = 2000;

function trim(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return text.length > TRIM ? `${text.slice(0, TRIM)}… (${text.length} characters)` : text;
}

function bodyOf(body: RecordedBody | undefined): string | undefined {
  if (body === undefined) return undefined;
  return body.text ?? `(${body.size} bytes${body.sha256 ? `, sha256 ${body.sha256}` : ''})`;
}

/** An exchange as a report shows it: credentials redacted, bodies trimmed. */
export function summariseExchange(
  exchange: Exchange,
  secrets: readonly string[] = [],
  credentialHeaders: readonly string[] = [],
): ExchangeSummary {
  const scrub = (text: string | undefined) => (text === undefined ? undefined : redactText(text, secrets));
  const summary: ExchangeSummary = {
    method: exchange.request.method,
    url: scrub(exchange.request.url) ?? '',
    requestHeaders: redactHeaders(exchange.request.headers, credentialHeaders),
  };
  const requestBody = trim(scrub(bodyOf(exchange.request.body)));
  if (requestBody !== undefined) summary.requestBody = requestBody;
  if (exchange.response) {
    summary.status = exchange.response.status;
    summary.responseHeaders = redactHeaders(exchange.response.headers, credentialHeaders);
    const responseBody = trim(scrub(bodyOf(exchange.response.body)));
    if (responseBody !== undefined) summary.responseBody = responseBody;
  }
  if (exchange.error) summary.error = scrub(exchange.error) ?? '';
  return summary;
}
