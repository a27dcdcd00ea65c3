import { createHash } from 'node:crypto';
import { type Dispatcher, request as undiciRequest } from 'undici';
import { codingErrorText, contentCodings, decodeContent, decodedTooLarge } from '../validate/content-coding.js';
import { isTextualMediaType } from '../validate/document.js';
import {
  decodeText,
  type Exchange,
  type Headers,
  mediaParam,
  mediaType,
  type RecordedBody,
} from '../validate/exchange.js';
import { MAGIC_LENGTH } from '../validate/magic.js';
import { multipartParts } from '../validate/multipart.js';
import { transportErrorText } from './transport-error.js';

// The suite's one way to speak to a service: every call comes back as an Exchange, so the core
// judges exactly what went over the wire.

export interface Outgoing {
  method: string;
  url: string;
  headers?: Headers;
  body?: Buffer | string;
}

/** Answers larger than this are not kept whole (the service's answers are small documents). */
const KEEP_LIMIT = 8 * 1024 * 1024;

export function recordBody(bytes: Buffer, contentType: string | undefined, keepBinary = true): RecordedBody {
  const body: RecordedBody = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  if (bytes.length > KEEP_LIMIT) {
    body.headBase64 = bytes.subarray(0, 64).toString('base64');
    body.skipped = 'too large';
  } else if (!contentType || isTextualMediaType(contentType)) body.text = decodeText(bytes, contentType);
  else if (keepBinary) body.base64 = bytes.toString('base64');
  else {
    body.headBase64 = bytes.subarray(0, Math.max(MAGIC_LENGTH, 64)).toString('base64');
    // A form held as its first bytes alone would lose its file part's type: its parts are kept,
    // as the proxy keeps them while streaming.
    const boundary = mediaType(contentType) === 'multipart/form-data' ? mediaParam(contentType, 'boundary') : undefined;
    if (boundary) body.parts = multipartParts(bytes, boundary);
  }
  return body;
}

/** Reading stops here: a broken service that answers without end must not fill the memory. */
const READ_LIMIT = 64 * 1024 * 1024;

export async function readAnswer(
  stream: AsyncIterable<Buffer> & { destroy(): void },
  contentType: string | undefined,
  contentEncoding: string | undefined,
) {
  const hash = createHash('sha256');
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    size += chunk.length;
    if (size <= KEEP_LIMIT) kept.push(chunk);
    else if (kept.length === 0) kept.push(chunk.subarray(0, 64));
    if (size > READ_LIMIT) {
      stream.destroy();
      const head = Buffer.concat(kept).subarray(0, 64);
      return {
        size,
        headBase64: head.toString('base64'),
        skipped: `larger than ${READ_LIMIT / 1024 / 1024} MiB: not read to its end`,
      } satisfies RecordedBody;
    }
  }
  if (size > KEEP_LIMIT) {
    const head = Buffer.concat(kept).subarray(0, 64);
    return { size, sha256: hash.digest('hex'), headBase64: head.toString('base64'), skipped: 'too large' };
  }
  return decodedBody(Buffer.concat(kept), contentType, contentEncoding);
}

/** The body as a client reads it: its content codings undone first (gzip, deflate, br). */
function decodedBody(
  bytes: Buffer,
  contentType: string | undefined,
  contentEncoding: string | undefined,
): RecordedBody {
  if (contentCodings(contentEncoding).length === 0 || bytes.length === 0) return recordBody(bytes, contentType);
  const coded = (): RecordedBody => ({
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    headBase64: bytes.subarray(0, 64).toString('base64'),
  });
  try {
    const decoded = decodeContent(bytes, contentEncoding as string, KEEP_LIMIT);
    return decoded
      ? recordBody(decoded, contentType)
      : { ...coded(), skipped: `content coding ${contentEncoding} not read` };
  } catch (error) {
    if (decodedTooLarge(error)) return { ...coded(), skipped: 'too large once decoded' };
    return { ...coded(), codingError: codingErrorText(contentEncoding as string, error) };
  }
}

export function flattenHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export class TransportError extends Error {
  constructor(
    message: string,
    readonly exchange: Exchange,
  ) {
    super(message);
  }
}

/**
 * Sends one request and returns it with its answer as an Exchange. A transport failure (refused,
 * reset, timeout) comes back as an Exchange without response and with `error` set.
 */
export async function send(outgoing: Outgoing, dispatcher?: Dispatcher, timeoutMs = 30_000): Promise<Exchange> {
  const headers = { ...outgoing.headers };
  const bodyBytes = outgoing.body === undefined ? undefined : Buffer.from(outgoing.body);
  const exchange: Exchange = {
    startedAt: new Date().toISOString(),
    request: { method: outgoing.method, url: outgoing.url, headers: flattenHeaders(headers) },
  };
  // Uploads are kept as their first bytes only: the suite knows what it sent.
  if (bodyBytes) exchange.request.body = recordBody(bodyBytes, headers['content-type'], bodyBytes.length <= 64 * 1024);
  const started = performance.now();
  // The timeout bounds the whole exchange: undici's own timeouts bound each wait, so an answer
  // trickling a byte a second would never end without this.
  const deadline = AbortSignal.timeout(timeoutMs);
  let headersCame = false;
  try {
    const answer = await undiciRequest(outgoing.url, {
      method: outgoing.method as Dispatcher.HttpMethod,
      headers,
      body: bodyBytes,
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: deadline,
    });
    headersCame = true;
    const responseHeaders = flattenHeaders(answer.headers);
    exchange.response = {
      status: answer.statusCode,
      headers: responseHeaders,
      body: await readAnswer(answer.body, responseHeaders['content-type'], responseHeaders['content-encoding']),
    };
  } catch (error) {
    const seconds = `${Number((timeoutMs / 1000).toFixed(3))} s`;
    exchange.error = !deadline.aborted
      ? transportErrorText(error, outgoing.url, timeoutMs)
      : headersCame
        ? `the answer did not end within ${seconds} (--timeout)`
        : `no answer within ${seconds} (--timeout)`;
    delete exchange.response;
  }
  exchange.durationMs = Math.round(performance.now() - started);
  return exchange;
}
