import type { Exchange, Headers, RecordedBody } from '../validate/exchange.js';

// HAR 1.2 entries (from browsers, proxies, anything) mapped onto the core's Exchange.

interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime?: string;
  time?: number;
  request: {
    method: string;
    url: string;
    headers?: HarHeader[];
    postData?: { mimeType?: string; text?: string; encoding?: string };
    bodySize?: number;
  };
  response?: {
    status: number;
    headers?: HarHeader[];
    content?: { size?: number; mimeType?: string; text?: string; encoding?: string };
  };
  _error?: string;
}

function headersOf(list: HarHeader[] | undefined): Headers {
  const out: Headers = {};
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
): RecordedBody | undefined {
  if (text === undefined) return undefined;
  if (encoding === 'base64') {
    const bytes = Buffer.from(text, 'base64');
    return { base64: text, size: bytes.length };
  }
  return {
    text,
    size:
      declaredSize !== undefined && declaredSize >= 0
        ? Math.max(declaredSize, Buffer.byteLength(text))
        : Buffer.byteLength(text),
  };
}

export function exchangeOfHarEntry(entry: HarEntry): Exchange {
  const exchange: Exchange = {
    request: { method: entry.request.method, url: entry.request.url, headers: headersOf(entry.request.headers) },
  };
  if (entry.startedDateTime) exchange.startedAt = entry.startedDateTime;
  if (entry.time !== undefined) exchange.durationMs = entry.time;
  // The sizes say what the decoded text does not: how many bytes it was (twice its length in UTF-16).
  const requestBody = bodyOf(entry.request.postData?.text, entry.request.postData?.encoding, entry.request.bodySize);
  if (requestBody) exchange.request.body = requestBody;
  // Browsers write status 0 for a request that got no answer.
  if (entry.response && entry.response.status > 0) {
    exchange.response = { status: entry.response.status, headers: headersOf(entry.response.headers) };
    const content = entry.response.content;
    const responseBody = bodyOf(content?.text, content?.encoding, content?.size);
    if (responseBody) exchange.response.body = responseBody;
    else if (content?.size === 0) exchange.response.body = { text: '', size: 0 };
  } else exchange.error = entry._error ?? 'no response';
  return exchange;
}
