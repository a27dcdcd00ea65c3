import { isRuleId, ruleById } from '../contract/rules.js';
import { type CurlOptions, curlCommand } from '../http/curl-command.js';
import { locateJsonMember, locateXmlElement } from '../http/locate-member.js';
import { formatOfMediaType, sniffFormat } from '../validate/document.js';
import { type Exchange, header, mediaType, type RecordedBody } from '../validate/exchange.js';
import { pointerSegments } from '../validate/schema-messages.js';
import type { FeedItem, RefusedHandshake } from './exchange-feed.js';
import { KEPT_IN_RECORDING } from './kept-exchange.js';
import { prettyJson, prettyXml } from './pretty-body.js';

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
  /** The body's size in bytes, as sent. */
  size?: number;
  /** The body's text, when it was kept as text. */
  text?: string;
  /** What stands for a body not kept as text: its size, digest, why it was not kept. */
  note?: string;
  places: Place[];
  /** The text laid out for reading (JSON and XML indented, every character as sent), with its places. */
  pretty?: { text: string; places: Place[] };
}

/** A rule's catalog entry, shown beside its findings. */
export interface RuleText {
  title: string;
  description: string;
  severity: string;
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
  /** The time to the answer's head and to its end, in ms. */
  headMs?: number;
  durationMs?: number;
  /** The catalog's text of each rule a finding names. */
  rules?: Record<string, RuleText>;
  refusedHandshake?: RefusedHandshake;
}

/** Where the request is sent again so that it is judged again: the proxy's own door. */
export interface ResendThrough {
  /** The target's base URL, which the proxy serves at `proxyBase`. */
  targetBase?: string;
  /** The proxy's (or serve's) base, as the page's reader reached it: "http://127.0.0.1:8080/". */
  proxyBase: string;
  /** A URL the request's kept body is downloaded from, for a body too large to write in the line. */
  bodyUrl?: string;
  /** The environment variable the download takes its bearer token from, when the control API asks for one. */
  bodyUrlToken?: string;
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
  const message: ShownMessage = { headers, size: body?.size ?? 0, places: [] };
  const text = body?.text;
  if (text === undefined) {
    const note = noteOf(body);
    if (note !== undefined && body?.size) message.note = note;
    return message;
  }
  message.text = text;
  if (body?.skipped) message.note = body.skipped;
  const format = formatOfMediaType(mediaType(header(headers, 'content-type'))) ?? sniffFormat(text);
  if (!format) return message;
  message.places = placesIn(text, format, violations, side);
  const pretty = format === 'json' ? prettyJson(text) : prettyXml(text);
  if (pretty !== text) message.pretty = { text: pretty, places: placesIn(pretty, format, violations, side) };
  return message;
}

function placesIn(
  text: string,
  format: 'json' | 'xml',
  violations: FeedItem['entry']['violations'],
  side: 'request' | 'response',
): Place[] {
  const places: Place[] = [];
  for (const violation of violations) {
    if (violation.side !== side || violation.path === undefined) continue;
    const segments = pointerSegments(violation.path);
    if (segments.length === 0) continue;
    const span = format === 'json' ? locateJsonMember(text, segments) : locateXmlElement(text, segments);
    if (span) places.push({ rule: violation.rule, start: span.start, end: span.end });
  }
  return places;
}

export function exchangeDetail(item: FeedItem, through?: ResendThrough): ExchangeDetail {
  const { entry, exchange } = item;
  const detail: ExchangeDetail = {
    seq: entry.seq,
    method: entry.method,
    url: entry.url,
    violations: entry.violations,
    request: shown(exchange.request.headers, exchange.request.body, entry.violations, 'request'),
    curl: entry.refusedHandshake ? '' : curlOf(exchange, through),
  };
  if (entry.headMs !== undefined) detail.headMs = entry.headMs;
  if (entry.durationMs !== undefined) detail.durationMs = entry.durationMs;
  if (entry.refusedHandshake) detail.refusedHandshake = entry.refusedHandshake;
  const rules: Record<string, RuleText> = {};
  for (const { rule } of entry.violations)
    if (isRuleId(rule)) {
      const { title, description, severity } = ruleById(rule);
      rules[rule] = { title, description, severity };
    }
  if (Object.keys(rules).length > 0) detail.rules = rules;
  if (entry.status !== undefined) detail.status = entry.status;
  if (entry.test !== undefined) detail.test = entry.test;
  if (entry.error !== undefined) detail.error = entry.error;
  if (entry.blocked) detail.blocked = true;
  if (exchange.response)
    detail.response = shown(exchange.response.headers, exchange.response.body, entry.violations, 'response');
  return detail;
}

/**
 * The curl command of the request, its credentials already masked in the recording. Sent through
 * the proxy, so that the request sent again is judged again: a URL under the target's base goes to
 * the proxy's base; any other (an intercepted host) goes through the proxy as curl's HTTP proxy.
 */
function curlOf(exchange: Exchange, through: ResendThrough | undefined): string {
  const options: CurlOptions = { secrets: ['[Filtered]'] };
  if (exchange.request.body?.skipped?.endsWith(KEPT_IN_RECORDING)) options.unheldBody = KEPT_IN_RECORDING;
  let sent = exchange;
  if (through) {
    const url = exchange.request.url;
    const base = through.targetBase;
    if (base && url.startsWith(base))
      sent = { ...exchange, request: { ...exchange.request, url: through.proxyBase + url.slice(base.length) } };
    else if (!url.startsWith(through.proxyBase)) options.proxy = through.proxyBase;
    if (through.bodyUrl) options.bodyUrl = through.bodyUrl;
    if (through.bodyUrlToken) options.bodyUrlToken = through.bodyUrlToken;
  }
  try {
    return curlCommand(sent, options);
  } catch {
    return '';
  }
}
