import { type Exchange, header, type RecordedBody, type Violation } from '../validate/exchange.js';

// One exchange as a HAR 1.2 entry, as the proxy's HAR recording and the live page's HAR download
// write it: bodies as the recording holds them (redacted), the proxy's findings under _violations.

/** An exchange as recorded, with its findings. */
export type HarExchange = Exchange & { violations: Violation[]; observations?: Violation[]; client?: string };

const pairs = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));

/**
 * A body as HAR holds it: text as text, bytes kept whole as base64 with `encoding`, and a body
 * kept only as a digest without any `text` (no reader, ours or a browser's, may take a placeholder
 * for the body) but with the digest under `_body` and a comment saying how to keep bodies.
 */
function harBody(body: RecordedBody): { text?: string; encoding?: string; comment?: string; _body?: object } {
  if (body.text !== undefined) return { text: body.text };
  if (body.base64 !== undefined) return { text: body.base64, encoding: 'base64' };
  const { text: _text, base64: _base64, ...digest } = body;
  const what = `${body.size} bytes${body.sha256 ? `, sha256 ${body.sha256}` : ''}`;
  return {
    comment: `body not recorded (${what}${body.skipped ? `; ${body.skipped}` : ''}); --record-bodies keeps it`,
    _body: digest,
  };
}

export function harEntry(exchange: HarExchange): object {
  const { request, response } = exchange;
  const url = new URL(request.url);
  return {
    startedDateTime: exchange.startedAt,
    time: exchange.durationMs ?? 0,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      headers: pairs(request.headers),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: request.body?.size ?? 0,
      ...(request.body && request.body.size > 0
        ? {
            postData: { mimeType: header(request.headers, 'content-type') ?? '', ...harBody(request.body) },
          }
        : {}),
    },
    response: {
      status: response?.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: pairs(response?.headers ?? {}),
      cookies: [],
      content: {
        size: response?.body?.size ?? 0,
        mimeType: header(response?.headers, 'content-type') ?? '',
        ...(response?.body ? harBody(response.body) : {}),
      },
      redirectURL: header(response?.headers, 'location') ?? '',
      headersSize: -1,
      bodySize: response?.body?.size ?? -1,
    },
    cache: {},
    // The wait is up to the answer's head, when it is known; the rest is the answer's body coming.
    timings: {
      send: 0,
      wait: exchange.headMs ?? exchange.durationMs ?? 0,
      receive: exchange.headMs === undefined ? 0 : Math.max(0, (exchange.durationMs ?? 0) - exchange.headMs),
    },
    ...(exchange.error ? { _error: exchange.error } : {}),
    _violations: exchange.violations,
    _observations: exchange.observations ?? [],
    // The client team it belongs to (proxy --clients-by), as the NDJSON line names it.
    ...(exchange.client !== undefined ? { _client: exchange.client } : {}),
  };
}
