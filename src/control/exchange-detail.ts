import { curlCommand } from '../http/curl-command.js';
import { locateJsonMember, locateXmlElement } from '../http/locate-member.js';
import { formatOfMediaType, sniffFormat } from '../validate/document.js';
import { type Exchange, header, mediaType, type RecordedBody } from '../validate/exchange.js';
import { pointerSegments } from '../validate/schema-messages.js';
import type { FeedItem } from './exchange-feed.js';

// An exchange opened for a person: its heads and bodies as the recording holds them (redacted),
// the places in the bodies that broke a rule, and a curl command that sends the request again.

export interface Place {
  rule: string;
  /** Characters of the side's body text that hold the member the finding names. */
  start: number;
  end: number;
}

export interface ShownMessage {
  headers: Record<string, string>;
  /** The body's text, when it was kept as text. */
  text?: string;
  /** What stands for a body not kept as text: its size, digest, why it was not kept. */
  note?: string;
  places: Place[];
}

export interface ExchangeDetail {
  seq: number;
  method: string;
  url: string;
  status?: number;
  test?: string;
  error?: string;
  blocked?: boolean;
  violations: FeedItem['entry']['violations'];
  request: ShownMessage;
  response?: ShownMessage;
  curl: string;
}

function noteOf(body: RecordedBody | undefined): string | undefined {
  if (!body) return undefined;
  const parts = [`${body.size} bytes`];
  if (body.sha256) parts.push(`sha256 ${body.sha256}`);
  if (body.parts) parts.push(`${body.parts.length} multipart part(s)`);
  if (body.skipped) parts.push(body.skipped);
  return parts.join(', ');
}

function shown(
  headers: Record<string, string>,
  body: RecordedBody | undefined,
  violations: FeedItem['entry']['violations'],
  side: 'request' | 'response',
): ShownMessage {
  const message: ShownMessage = { headers, places: [] };
  const text = body?.text;
  if (text === undefined) {
    const note = noteOf(body);
    if (note !== undefined && body?.size) message.note = note;
    return message;
  }
  message.text = text;
  if (body?.skipped) message.note = body.skipped;
  const format = formatOfMediaType(mediaType(header(headers, 'content-type'))) ?? sniffFormat(text);
  for (const violation of violations) {
    if (violation.side !== side || violation.path === undefined || !format) continue;
    const segments = pointerSegments(violation.path);
    if (segments.length === 0) continue;
    const span = format === 'json' ? locateJsonMember(text, segments) : locateXmlElement(text, segments);
    if (span) message.places.push({ rule: violation.rule, start: span.start, end: span.end });
  }
  return message;
}

export function exchangeDetail(item: FeedItem): ExchangeDetail {
  const { entry, exchange } = item;
  const detail: ExchangeDetail = {
    seq: entry.seq,
    method: entry.method,
    url: entry.url,
    violations: entry.violations,
    request: shown(exchange.request.headers, exchange.request.body, entry.violations, 'request'),
    curl: curlOf(exchange),
  };
  if (entry.status !== undefined) detail.status = entry.status;
  if (entry.test !== undefined) detail.test = entry.test;
  if (entry.error !== undefined) detail.error = entry.error;
  if (entry.blocked) detail.blocked = true;
  if (exchange.response)
    detail.response = shown(exchange.response.headers, exchange.response.body, entry.violations, 'response');
  return detail;
}

/** The curl command of the request, its credentials already masked in the recording. */
function curlOf(exchange: Exchange): string {
  try {
    return curlCommand(exchange, { secrets: ['[Filtered]'] });
  } catch {
    return '';
  }
}
