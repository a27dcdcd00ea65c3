import { redactExchange } from '../http/redact-exchange.js';
import type { ExchangeSummary } from '../probes/config.js';
import type { Exchange, RecordedBody } from '../validate/exchange.js';

const TRIM = 2000;

function trim(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return text.length > TRIM ? `${text.slice(0, TRIM)}… (${text.length} characters)` : text;
}

function bodyOf(body: RecordedBody | undefined): string | undefined {
  if (body === undefined) return undefined;
  return body.text ?? `(${body.size} bytes${body.sha256 ? `, sha256 ${body.sha256}` : ''})`;
}

/**
 * An exchange as a report shows it: redacted as the proxy redacts its recordings (headers, URL,
 * bodies; whoever recorded it), bodies trimmed.
 * @param secrets literal secrets to replace too (the run's own credentials)
 * @param credentialHeaders more header names whose values are secret
 */
export function summariseExchange(
  exchange: Exchange,
  secrets: readonly string[] = [],
  credentialHeaders: readonly string[] = [],
): ExchangeSummary {
  const redacted = redactExchange(exchange, { names: credentialHeaders, secrets });
  const summary: ExchangeSummary = {
    method: redacted.request.method,
    url: redacted.request.url,
    requestHeaders: redacted.request.headers,
  };
  const requestBody = trim(bodyOf(redacted.request.body));
  if (requestBody !== undefined) summary.requestBody = requestBody;
  if (redacted.response) {
    summary.status = redacted.response.status;
    summary.responseHeaders = redacted.response.headers;
    const responseBody = trim(bodyOf(redacted.response.body));
    if (responseBody !== undefined) summary.responseBody = responseBody;
  }
  if (redacted.error) summary.error = redacted.error;
  return summary;
}
