import { declaredEncoding, namesEightBitEncoding } from '../validate/encoding.js';
import { type Exchange, type Headers, mediaParam, type RecordedBody } from '../validate/exchange.js';
import { isObject, statusFlaw } from './exchange-shape.js';

// HAR 1.2 entries (from browsers, proxies, anything) mapped onto the core's Exchange.

interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime?: string;
  time?: number;
  /** The proxy's own findings on the exchange, as it judged it live. */
  _violations?: unknown;
  request: {
    method: string;
    url: string;
    headers?: HarHeader[];
    postData?: { mimeType?: string; text?: string; encoding?: string; _body?: unknown };
    bodySize?: number;
  };
  response?: {
    status: number;
    headers?: HarHeader[];
    content?: { size?: number; mimeType?: string; text?: string; encoding?: string; _body?: unknown };
  };
  _error?: string;
  /** The client team the proxy named (--clients-by). */
  _client?: unknown;
}

function headersOf(list: HarHeader[] | undefined): Headers {
  // No prototype: a header named "constructor" or "__proto__" is a header like any other.
  const out: Headers = Object.create(null);
  for (const { name, value } of list ?? []) {
    const key = name.toLowerCase();
    // HTTP/2 pseudo-headers (":authority") are not headers of the message.
    if (key.startsWith(':')) continue;
    out[key] = out[key] === undefined ? value : `${out[key]}, ${value}`;
  }
  return out;
}

function bodyOf(
  text: string | undefined,
  encoding: string | undefined,
  declaredSize?: number,
  mimeType?: string,
): RecordedBody | undefined {
  if (text === undefined) return undefined;
  if (encoding === 'base64') {
    const bytes = Buffer.from(text, 'base64');
    return { base64: text, size: bytes.length };
  }
  const utf8Size = Buffer.byteLength(text);
  // Text a tool decoded from an 8-bit encoding that the body names (ISO-8859-1, say) was one byte a
  // character: a size that says so is kept, so that the core does not take the text for UTF-8.
  const namesEightBit = namesEightBitEncoding(declaredEncoding(text) ?? mediaParam(mimeType, 'charset'));
  // Without a size (HAR allows -1, "not available") nothing says the bytes were other than the body
  // names them: read as UTF-8, a correct ISO-8859-1 body would be failed as misdeclared.
  if (declaredSize === undefined || declaredSize < 0) return { text, size: namesEightBit ? text.length : utf8Size };
  const eightBit = declaredSize === text.length && namesEightBit;
  return { text, size: eightBit ? declaredSize : Math.max(declaredSize, utf8Size) };
}

/**
 * A body the proxy recorded as a digest (`_body`: size, sha256, first bytes, multipart parts)
 * rather than whole: read back as the same digest, never as a body of that text.
 */
function digestOf(value: unknown): RecordedBody | undefined {
  if (!isObject(value) || typeof value.size !== 'number') return undefined;
  const body: RecordedBody = { size: value.size };
  if (typeof value.sha256 === 'string') body.sha256 = value.sha256;
  if (typeof value.headBase64 === 'string') body.headBase64 = value.headBase64;
  if (typeof value.skipped === 'string') body.skipped = value.skipped;
  if (typeof value.codingError === 'string') body.codingError = value.codingError;
  if (Array.isArray(value.parts))
    body.parts = value.parts.filter(
      (part): part is NonNullable<RecordedBody['parts']>[number] => isObject(part) && typeof part.size === 'number',
    );
  return body;
}

const isHeaderList = (value: unknown) =>
  value === undefined ||
  (Array.isArray(value) &&
    value.every((header) => isObject(header) && typeof header.name === 'string' && typeof header.value === 'string'));

const isBodyText = (value: unknown) =>
  value === undefined || (isObject(value) && (value.text === undefined || typeof value.text === 'string'));

/**
 * Why an entry cannot stand for an exchange, or undefined when it can. HAR files come from any
 * tool, hand-edited ones too: one odd entry is skipped, it must not stop the reading of the others.
 */
function flawOf(entry: unknown): string | undefined {
  if (!isObject(entry)) return 'it is not an object';
  const { request, response } = entry;
  if (!isObject(request)) return 'it has no request';
  if (typeof request.method !== 'string') return 'request.method is not a string';
  if (typeof request.url !== 'string') return 'request.url is not a string';
  if (!isHeaderList(request.headers)) return 'request.headers is not a list of names and values';
  if (!isBodyText(request.postData)) return 'request.postData.text is not a string';
  if (response === undefined) return undefined;
  if (!isObject(response)) return 'response is not an object';
  // Browsers write status 0 for a request that got no answer.
  if (response.status !== 0) {
    const flaw = statusFlaw(response.status, 'response.status');
    if (flaw) return flaw;
  }
  if (!isHeaderList(response.headers)) return 'response.headers is not a list of names and values';
  if (!isBodyText(response.content)) return 'response.content.text is not a string';
  return undefined;
}

/** The exchange a HAR entry records; throws, saying why, for an entry of another shape. */
export function exchangeOfHarEntry(value: unknown): Exchange {
  const flaw = flawOf(value);
  if (flaw) throw new Error(flaw);
  const entry = value as HarEntry;
  const exchange: Exchange = {
    request: { method: entry.request.method, url: entry.request.url, headers: headersOf(entry.request.headers) },
  };
  if (typeof entry.startedDateTime === 'string') exchange.startedAt = entry.startedDateTime;
  if (typeof entry.time === 'number') exchange.durationMs = entry.time;
  // The sizes say what the decoded text does not: how many bytes it was (twice its length in UTF-16).
  const postData = entry.request.postData;
  const requestBody =
    bodyOf(postData?.text, postData?.encoding, entry.request.bodySize, postData?.mimeType) ?? digestOf(postData?._body);
  if (requestBody) exchange.request.body = requestBody;
  else if (typeof entry.request.bodySize === 'number' && entry.request.bodySize > 0)
    exchange.request.body = { size: entry.request.bodySize, skipped: 'not recorded in the HAR' };
  // Browsers write status 0 for a request that got no answer.
  if (entry.response && entry.response.status > 0) {
    exchange.response = { status: entry.response.status, headers: headersOf(entry.response.headers) };
    const content = entry.response.content;
    const responseBody = bodyOf(
      content?.text,
      content?.encoding,
      content?.size,
      content?.mimeType ?? headersOf(entry.response.headers)['content-type'],
    );
    const recorded = responseBody ?? digestOf(content?._body);
    if (recorded) exchange.response.body = recorded;
    else if (content?.size === 0) exchange.response.body = { text: '', size: 0 };
    // A tool that left the body out (a HAR saved without content) gives its size only: the
    // answer had a body, which no rule may take for an empty one.
    else if (typeof content?.size === 'number' && content.size > 0)
      exchange.response.body = { size: content.size, skipped: 'not recorded in the HAR' };
  } else exchange.error = typeof entry._error === 'string' ? entry._error : 'no response';
  // Kept as an NDJSON line keeps them: validate takes over those that masks hide (recorded-findings.ts).
  if (Array.isArray(entry._violations)) Object.assign(exchange, { violations: entry._violations });
  if (typeof entry._client === 'string') Object.assign(exchange, { client: entry._client });
  return exchange;
}
