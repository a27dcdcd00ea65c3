import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Exchange } from '../validate/exchange.js';
import { flattenHeaders, type Outgoing, readAnswer, recordBody } from './send.js';
import { transportErrorText } from './transport-error.js';

// Uploads framed as streaming clients frame them, which the suite's usual client never does: a
// body sent in chunks without a length (Transfer-Encoding: chunked), and a body held back until
// the service says to go on (Expect: 100-continue, as libcurl and the official PHP client send
// larger bodies). Node's own client, since undici refuses an Expect header.

export interface Framing {
  /** No Content-Length: the body goes in chunks. */
  chunked?: boolean;
  /** Expect: 100-continue, the body sent on the 100 (or, as curl does, after a second without one). */
  expectContinue?: boolean;
}

/** How long a client waits for a 100 before it sends the body anyway (curl waits one second). */
const CONTINUE_WAIT_MS = 1000;

export function sendFramed(
  outgoing: Outgoing & { body: Buffer },
  framing: Framing,
  timeoutMs = 30_000,
): Promise<Exchange> {
  const headers: Record<string, string> = { ...outgoing.headers };
  if (!framing.chunked) headers['content-length'] = String(outgoing.body.length);
  if (framing.expectContinue) headers.expect = '100-continue';
  const exchange: Exchange = {
    startedAt: new Date().toISOString(),
    request: {
      method: outgoing.method,
      url: outgoing.url,
      headers: flattenHeaders({ ...headers, ...(framing.chunked ? { 'transfer-encoding': 'chunked' } : {}) }),
      body: recordBody(outgoing.body, headers['content-type'], false),
    },
  };
  const started = performance.now();
  const url = new URL(outgoing.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Exchange>((resolve) => {
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(wait);
      clearTimeout(deadline);
      if (error !== undefined) exchange.error = transportErrorText(error, outgoing.url, timeoutMs);
      exchange.durationMs = Math.round(performance.now() - started);
      request.destroy();
      resolve(exchange);
    };
    const request = send(url, { method: outgoing.method, headers });
    let bodySent = false;
    const writeBody = () => {
      if (bodySent) return;
      bodySent = true;
      if (framing.chunked) {
        const half = outgoing.body.length >> 1;
        request.write(outgoing.body.subarray(0, half));
        request.end(outgoing.body.subarray(half));
      } else request.end(outgoing.body);
    };
    const wait = setTimeout(writeBody, framing.expectContinue ? CONTINUE_WAIT_MS : 0);
    const deadline = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('continue', writeBody);
    request.on('error', (error) => finish(error));
    request.on('response', (answer: IncomingMessage) => {
      const responseHeaders = flattenHeaders(answer.headers);
      readAnswer(answer, responseHeaders['content-type'], responseHeaders['content-encoding']).then(
        (body) => {
          exchange.response = { status: answer.statusCode ?? 0, headers: responseHeaders, body };
          finish();
        },
        (error) => finish(error),
      );
    });
    if (!framing.expectContinue) {
      clearTimeout(wait);
      writeBody();
    }
  });
}
