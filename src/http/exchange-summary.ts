import type { ExchangeSummary } from '../findings/types.js';
import { formatOfMediaType, sniffFormat } from '../validate/document.js';
import { bodyText, type Exchange, header, mediaType, type RecordedBody, type Violation } from '../validate/exchange.js';
import { curlCommand } from './curl-command.js';
import { excerpt } from './excerpt.js';
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

/** The lines of the body on the violation's side around the member at its path, secrets scrubbed. */
function excerptOf(exchange: Exchange, at: Pick<Violation, 'side' | 'path'>, secrets: readonly string[]) {
  const message = at.side === 'request' ? exchange.request : exchange.response;
  const text = bodyText(message?.body);
  if (at.path === undefined || !message || !text) return undefined;
  const format = formatOfMediaType(mediaType(header(message.headers, 'content-type'))) ?? sniffFormat(text);
  return format ? excerpt(redactText(text, secrets), format, at.path) : undefined;
}

/**
 * An exchange as a report shows it: credentials redacted, bodies trimmed, with a curl command that
 * sends the request again and, for a violation with a path, an excerpt of the body around it.
 */
export function summariseExchange(
  exchange: Exchange,
  secrets: readonly string[] = [],
  credentialHeaders: readonly string[] = [],
  violation?: Pick<Violation, 'side' | 'path'>,
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
  summary.curl = curlCommand(exchange, { secrets, credentialHeaders });
  const shown = violation ? excerptOf(exchange, violation, secrets) : undefined;
  if (shown !== undefined) summary.excerpt = shown;
  return summary;
}
