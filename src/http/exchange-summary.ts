import type { ExchangeSummary } from '../findings/types.js';
import { REDACTED, redactExchange } from '../redaction/index.js';
import { formatOfMediaType, sniffFormat } from '../validate/document.js';
import { bodyText, type Exchange, header, mediaType, type RecordedBody, type Violation } from '../validate/exchange.js';
import { curlCommand } from './curl-command.js';
import { excerpt } from './excerpt.js';

const TRIM = 2000;

function trim(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return text.length > TRIM ? `${text.slice(0, TRIM)}… (${text.length} characters)` : text;
}

function bodyOf(body: RecordedBody | undefined): string | undefined {
  if (body === undefined) return undefined;
  return body.text ?? `(${body.size} bytes${body.sha256 ? `, sha256 ${body.sha256}` : ''})`;
}

/** The lines of the body on the violation's side around the member at its path. */
function excerptOf(exchange: Exchange, at: Pick<Violation, 'side' | 'path'>) {
  const message = at.side === 'request' ? exchange.request : exchange.response;
  const contentType = header(message?.headers, 'content-type');
  const text = bodyText(message?.body, contentType);
  if (at.path === undefined || !message || !text) return undefined;
  const format = formatOfMediaType(mediaType(contentType)) ?? sniffFormat(text);
  return format ? excerpt(text, format, at.path) : undefined;
}

/**
 * The redacted exchange with its Authorization scheme put back (the word "Bearer" is no secret), so
 * that the curl command can say `Authorization: Bearer $TOKEN` rather than a bare placeholder.
 */
function withAuthScheme(redacted: Exchange, original: Exchange): Exchange {
  const sent = header(original.request.headers, 'authorization');
  const scheme = sent === undefined ? undefined : /^([A-Za-z][\w-]*) \S/.exec(sent)?.[1];
  if (scheme === undefined) return redacted;
  const headers = Object.fromEntries(
    Object.entries(redacted.request.headers).map(([name, value]) => [
      name,
      name.toLowerCase() === 'authorization' ? `${scheme} [Filtered]` : value,
    ]),
  );
  return { ...redacted, request: { ...redacted.request, headers } };
}

/**
 * An exchange as a report shows it: redacted as the proxy redacts its recordings (headers, URL,
 * bodies; whoever recorded it), bodies trimmed, with a curl command that sends the request again
 * and, for a violation with a path, an excerpt of the body around it.
 * @param secrets literal secrets to replace too (the run's own credentials)
 * @param credentialHeaders more header names whose values are secret
 */
export function summariseExchange(
  exchange: Exchange,
  secrets: readonly string[] = [],
  credentialHeaders: readonly string[] = [],
  violation?: Pick<Violation, 'side' | 'path'>,
): ExchangeSummary {
  // Everything below is made from the redacted exchange only, the curl command and excerpt too.
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
  // The secrets are gone from the redacted exchange; what stands in their place becomes $SECRET.
  summary.curl = curlCommand(withAuthScheme(redacted, exchange), { secrets: [REDACTED], credentialHeaders });
  const shown = violation ? excerptOf(redacted, violation) : undefined;
  if (shown !== undefined) summary.excerpt = shown;
  return summary;
}
