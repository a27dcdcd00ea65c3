import { randomUUID } from 'node:crypto';
import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { listen } from '../src/http/listen.js';
import { isTextualMediaType } from '../src/validate/document.js';
import type { Exchange, Headers, Violation } from '../src/validate/exchange.js';
import { mediaType } from '../src/validate/exchange.js';
import { CheckoutState, validateExchange } from '../src/validate/index.js';
import { BodyTap } from './body-tap.js';
import { ViolationTally } from './exchange-log.js';
import { type RecordedExchange, Recorder } from './recorder.js';
import { type RedactionOptions, redactExchange } from './redaction.js';
import { rewriteLocation, rewriteTargetUrls } from './rewrite-urls.js';

// A reverse proxy that forwards every byte unchanged (but for absolute URLs that point at the
// target), watches both bodies as they pass, judges each exchange with the core, and records it.

export interface ProxyOptions {
  target: string;
  host?: string;
  port?: number;
  mode?: 'report' | 'enforce';
  recordFile?: string;
  harFile?: string;
  recordBodies?: boolean;
  /** JSON/XML bodies up to this size are kept and validated (default 8 MiB). */
  validateLimit?: number;
  rewriteUrls?: boolean;
  violationsHeader?: boolean;
  redact?: Partial<RedactionOptions>;
  /** Rule IDs judged; the others are ignored (default: all). */
  selected?: Set<string>;
  strict?: boolean;
  connectTimeoutMs?: number;
  /** A client that sends nothing for this long, in its head or its body, is cut off (default 30 s). */
  clientTimeoutMs?: number;
  /** On close, exchanges still in flight after this long are cut off and recorded as such (default 10 s). */
  stopTimeoutMs?: number;
  /** Host names clients may address the proxy by, besides IP addresses, localhost and `host`. */
  allowedHosts?: string[];
  log?: (line: string) => void;
}

export interface ProxyHandle {
  url: string;
  tally: ViolationTally;
  /** Stops accepting, lets exchanges in flight finish, flushes the recording. */
  close(): Promise<void>;
}

export const VIOLATIONS_HEADER = 'print-conformance-violations';
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function flatHeaders(raw: IncomingMessage['headers']): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(raw))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** Reads a body's first chunks (up to just past `limit`), then leaves the request paused. */
function peekBody(request: IncomingMessage, limit: number): Promise<Buffer[]> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      request.off('data', onData);
      request.off('end', stop);
      request.pause();
      resolve(chunks);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) stop();
    };
    request.on('data', onData);
    request.on('end', stop);
  });
}

/** A Host header's name and port, or undefined when it is no plain host[:port]. */
function parseHost(value: string): { name: string; port?: string } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(value);
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), port: match[2] };
}

/**
 * Whether a request's Host names this proxy. A web page on another name that resolves to this
 * machine (DNS rebinding) must not be able to read the target through the proxy, so names are
 * allowed only when they are IP addresses, localhost, the listening host or explicitly allowed.
 * The checked Host is also the only text rewritten URLs take from a request: nothing else can be
 * injected into answers' headers or bodies.
 */
function hostAllowed(value: string | undefined, listenHost: string, allowed: string[]): boolean {
  if (value === undefined) return true;
  const host = parseHost(value);
  if (!host) return false;
  const bare = host.name.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0 || host.name === 'localhost' || host.name.endsWith('.localhost')) return true;
  if (host.name === listenHost.toLowerCase()) return true;
  return allowed.some((name) => {
    const lower = name.toLowerCase();
    return lower === 'all' || lower === host.name || (lower.startsWith('.') && host.name.endsWith(lower));
  });
}

/** Method and path of an exchange for the log: never the query, which may carry a token. */
function requestLine(exchange: Exchange): string {
  return `${exchange.request.method} ${new URL(exchange.request.url).pathname}`;
}

function describeViolations(violations: Violation[]): string {
  return [...new Set(violations.map((v) => `${v.rule} (${v.side})`))].join(', ');
}

export async function startProxy(options: ProxyOptions): Promise<ProxyHandle> {
  const target = new URL(options.target);
  if (!target.pathname.endsWith('/')) target.pathname += '/';
  const targetBase = target.href;
  const secure = target.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 256 })
    : new HttpAgent({ keepAlive: true, maxSockets: 256 });
  const send = secure ? httpsRequest : httpRequest;
  const validateLimit = options.validateLimit ?? 8 * 1024 * 1024;
  const tapOptions = { keepLimit: validateLimit, keepBinary: options.recordBodies ?? false };
  const redaction: RedactionOptions = {
    headers: options.redact?.headers ?? [],
    members: options.redact?.members ?? [],
  };
  const recorder = new Recorder(options.recordFile, options.harFile);
  await recorder.ready();
  const state = new CheckoutState();
  const tally = new ViolationTally();
  const log = options.log ?? (() => {});
  const enforce = options.mode === 'enforce';
  const inFlight = new Set<Promise<void>>();
  const clientTimeoutMs = options.clientTimeoutMs ?? 30_000;
  const listenHost = options.host ?? '127.0.0.1';
  const allowedHosts = options.allowedHosts ?? [];
  let stopping = false;
  const silentClients = new WeakSet<Socket>();

  const judge = (exchange: Exchange): Violation[] => {
    try {
      return validateExchange(exchange, state).filter((v) => !options.selected || options.selected.has(v.rule));
    } catch (error) {
      // Judging runs in the middle of forwarding: whatever goes wrong in it must not take the
      // proxy down or lose the exchange. It is forwarded and recorded as not judged.
      const message = `print-conformance could not judge this exchange: ${(error as Error).message}`;
      exchange.error = exchange.error ?? message;
      log(`${requestLine(exchange)}: ${message}`);
      return [];
    }
  };

  function finish(exchange: RecordedExchange, started: number): void {
    exchange.durationMs = Math.round(performance.now() - started);
    tally.add(exchange.violations.filter((v) => v.severity !== 'observe'));
    recorder.record(redactExchange(exchange, redaction) as RecordedExchange);
    const shown = exchange.violations.filter((v) => v.severity !== 'observe');
    if (shown.length > 0 || exchange.error) {
      log(
        `${requestLine(exchange)} → ${exchange.response?.status ?? exchange.error}${shown.length ? `  ${describeViolations(shown)}` : ''}`,
      );
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const proxyBase = `http://${request.headers.host ?? listenHost}/`;
    const rawUrl = request.url ?? '/';
    const exchange: RecordedExchange = {
      id: randomUUID(),
      startedAt: new Date().toISOString(),
      request: { method: request.method ?? 'GET', url: '', headers: flatHeaders(request.headers) },
      violations: [],
    };
    // Only origin-form requests ("/path"): the proxy is no open proxy and reaches only its target.
    if (!rawUrl.startsWith('/') || rawUrl.startsWith('//')) {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end('{"message":"print-conformance proxy: only paths of the target are forwarded"}');
      request.resume();
      return;
    }
    if (!hostAllowed(request.headers.host, listenHost, allowedHosts)) {
      const body = JSON.stringify({
        message: `print-conformance proxy: Host ${JSON.stringify(request.headers.host)} is not a name of this proxy; allow it with --allowed-host`,
      });
      response
        .writeHead(403, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
        .end(body);
      request.resume();
      log(`refused a request for Host ${JSON.stringify(request.headers.host)}`);
      return;
    }
    // Joined as text, never resolved as a relative URL: "/http://elsewhere/" must not leave the target.
    const targetUrl = new URL(`${targetBase}${rawUrl.slice(1)}`);
    // Dot segments ("/../admin") would climb out of the target's base path: refused as well.
    if (targetUrl.origin !== target.origin || !targetUrl.pathname.startsWith(target.pathname)) {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end('{"message":"print-conformance proxy: only paths of the target are forwarded"}');
      request.resume();
      return;
    }
    exchange.request.url = targetUrl.href;

    // The client's silence counts while it sends; waiting for the target is the connect timeout's.
    if (request.readableEnded) request.socket.setTimeout(0);
    else request.once('end', () => request.socket.setTimeout(0));
    response.once('finish', () => request.socket.setTimeout(clientTimeoutMs));

    const requestTap = new BodyTap(request.headers, tapOptions);
    const outgoingHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'host') outgoingHeaders[name] = value;
    }
    outgoingHeaders.host = target.host;

    // In enforce mode a small JSON/XML/form or multipart head is read before anything is forwarded.
    const peeked: Buffer[] = [];
    if (enforce && request.method !== 'GET' && request.method !== 'HEAD') {
      const type = mediaType(request.headers['content-type']);
      const peekLimit = type === 'multipart/form-data' ? 64 * 1024 : isTextualMediaType(type) ? validateLimit : 0;
      if (peekLimit > 0) peeked.push(...(await peekBody(request, peekLimit)));
      for (const chunk of peeked) requestTap.push(chunk);
      const previewTap = new BodyTap(request.headers, tapOptions);
      for (const chunk of peeked) previewTap.push(chunk);
      const preview: Exchange = {
        request: { ...exchange.request, body: previewTap.finish(request.headers['content-encoding']) },
      };
      const blocking = judge(preview).filter((v) => v.side === 'request' && v.severity === 'must');
      if (blocking.length > 0) {
        const rules = [...new Set(blocking.map((v) => v.rule))];
        const body = JSON.stringify({
          message: `print-conformance blocked this request: it breaks ${rules.join(', ')}`,
          violations: blocking,
        });
        const status = rules.every((r) => r === 'upload.content-type') ? 415 : 400;
        const headers: Headers = {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
          [VIOLATIONS_HEADER]: describeViolations(blocking),
        };
        response.writeHead(status, headers);
        response.end(body);
        request.resume();
        exchange.request.body = preview.request.body;
        exchange.response = { status, headers, body: { text: body, size: Buffer.byteLength(body) } };
        exchange.violations = blocking;
        exchange.blocked = true;
        finish(exchange, started);
        return;
      }
    }

    await new Promise<void>((resolve) => {
      let settled = false;
      const done = () => {
        if (!settled) {
          settled = true;
          resolve();
        }
      };
      const upstream = send(targetUrl, {
        method: request.method,
        headers: outgoingHeaders,
        agent,
        timeout: options.connectTimeoutMs ?? 10_000,
      });
      const fail = (status: number, message: string) => {
        exchange.request.body = requestTap.finish(request.headers['content-encoding']);
        exchange.error = message;
        exchange.violations = judge(exchange);
        if (!response.headersSent) {
          const body = JSON.stringify({ message: `print-conformance proxy: ${message}` });
          response
            .writeHead(status, {
              'content-type': 'application/json; charset=utf-8',
              'content-length': String(Buffer.byteLength(body)),
            })
            .end(body);
        } else response.destroy();
        finish(exchange, started);
        done();
      };
      upstream.on('timeout', () =>
        upstream.destroy(
          Object.assign(
            new Error(
              `the target ${targetBase} did not answer within ${(options.connectTimeoutMs ?? 10_000) / 1000} s`,
            ),
            { code: 'ETIMEDOUT' },
          ),
        ),
      );
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (settled) return;
        if (stopping) return fail(503, 'the proxy stopped before the exchange completed');
        if (response.headersSent) return fail(502, `the target broke off the answer (${error.code ?? error.message})`);
        if (error.code === 'ETIMEDOUT') return fail(504, error.message);
        fail(502, `the target ${targetBase} cannot be reached (${error.code ?? error.message})`);
      });
      request.on('aborted', () => {
        upstream.destroy();
        if (settled) return;
        if (stopping) fail(503, 'the proxy stopped before the exchange completed');
        else if (silentClients.has(request.socket))
          fail(408, `the client sent nothing for ${clientTimeoutMs / 1000} s`);
        else fail(499, 'the client broke off the request');
      });

      upstream.on('response', (answer) => {
        upstream.setTimeout(0);
        const status = answer.statusCode ?? 502;
        const headers: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
        if (options.rewriteUrls !== false && typeof headers.location === 'string')
          headers.location = rewriteLocation(headers.location, targetBase, proxyBase);
        const responseTap = new BodyTap(answer.headers, tapOptions);
        const type = mediaType(answer.headers['content-type']);
        const declared = Number(answer.headers['content-length']);
        const bufferable = isTextualMediaType(type) && (!Number.isFinite(declared) || declared <= validateLimit);
        const encoded = Boolean(
          answer.headers['content-encoding'] && answer.headers['content-encoding'] !== 'identity',
        );

        const complete = (bodyText: string | undefined) => {
          exchange.request.body = requestTap.finish(request.headers['content-encoding']);
          exchange.response = {
            status,
            headers: flatHeaders(answer.headers),
            body: responseTap.finish(answer.headers['content-encoding']),
          };
          if (bodyText !== undefined && exchange.response.body) exchange.response.body.text = bodyText;
          exchange.violations = judge(exchange);
        };

        if (bufferable) {
          const chunks: Buffer[] = [];
          let size = 0;
          let streaming = false;
          answer.on('data', (chunk: Buffer) => {
            responseTap.push(chunk);
            if (streaming) return;
            chunks.push(chunk);
            size += chunk.length;
            if (size > validateLimit) {
              // Larger than announced: pass it through from here on, unvalidated.
              streaming = true;
              response.writeHead(status, headers);
              for (const c of chunks.splice(0)) response.write(c);
              answer.pipe(response);
            }
          });
          answer.on('end', () => {
            if (streaming) {
              complete(undefined);
              finish(exchange, started);
              done();
              return;
            }
            let bytes = Buffer.concat(chunks);
            const original = bytes.toString('utf8');
            complete(encoded ? undefined : original);
            if (options.rewriteUrls !== false && !encoded) {
              const rewritten = rewriteTargetUrls(original, targetBase, proxyBase);
              if (rewritten !== original) {
                bytes = Buffer.from(rewritten);
                headers['content-length'] = String(bytes.length);
              }
            }
            const reportable = exchange.violations.filter((v) => v.severity !== 'observe');
            if (options.violationsHeader !== false && reportable.length > 0)
              headers[VIOLATIONS_HEADER] = describeViolations(reportable);
            response.writeHead(status, headers);
            response.end(bytes);
            finish(exchange, started);
            done();
          });
        } else {
          // Binary or large: the answer streams through; the header can only name request-side findings.
          const early = judge({
            request: { ...exchange.request, body: requestTap.finish(request.headers['content-encoding']) },
          }).filter((v) => v.severity !== 'observe');
          if (options.violationsHeader !== false && early.length > 0)
            headers[VIOLATIONS_HEADER] = describeViolations(early);
          response.writeHead(status, headers);
          answer.on('data', (chunk: Buffer) => responseTap.push(chunk));
          answer.pipe(response);
          answer.on('end', () => {
            exchange.request.body = requestTap.finish(request.headers['content-encoding']);
            exchange.response = {
              status,
              headers: flatHeaders(answer.headers),
              body: responseTap.finish(answer.headers['content-encoding']),
            };
            exchange.violations = judge(exchange);
            finish(exchange, started);
            done();
          });
        }
        answer.on('aborted', () => {
          response.destroy();
          if (!settled) {
            exchange.error = 'the target broke off the answer';
            finish(exchange, started);
            done();
          }
        });
      });

      for (const chunk of peeked) upstream.write(chunk);
      if (request.readableEnded) {
        upstream.end();
      } else {
        request.on('data', (chunk: Buffer) => {
          requestTap.push(chunk);
          if (!upstream.write(chunk)) {
            request.pause();
            upstream.once('drain', () => request.resume());
          }
        });
        request.on('end', () => upstream.end());
        request.resume();
      }
    });
  }

  const server = createServer((request, response) => {
    const work = handle(request, response).catch((error: Error) => {
      if (!response.headersSent)
        response
          .writeHead(502, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: `print-conformance proxy: ${error.message}` }));
      else response.destroy();
    });
    inFlight.add(work);
    work.finally(() => inFlight.delete(work));
  });
  // CONNECT would make this an open tunnel: refused.
  server.on('connect', (_request, socket) =>
    socket.end('HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n'),
  );
  // A client may not go silent for the client timeout while it connects, sends a head or sends a
  // body; how long a whole upload of gigabytes takes is not limited. (Node's own headersTimeout
  // did not cut off connections that sent nothing or half a head.)
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  server.on('connection', (socket: Socket) => {
    socket.setTimeout(clientTimeoutMs);
    socket.on('timeout', () => {
      silentClients.add(socket);
      socket.destroy();
    });
  });

  const origin = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');

  return {
    url: `${origin}/`,
    tally,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Exchanges in flight may finish, but a client that keeps an upload open cannot hold the
      // proxy forever: past the stop timeout their connections are cut and they are recorded so.
      const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), stopTimeoutMs);
      });
      if ((await Promise.race([Promise.allSettled([...inFlight]), late])) === 'late') {
        stopping = true;
        log(`stopping: cutting off ${inFlight.size} exchange(s) still in flight after ${stopTimeoutMs / 1000} s`);
        server.closeAllConnections();
        agent.destroy();
        await Promise.allSettled([...inFlight]);
      }
      clearTimeout(timer);
      await closed;
      agent.destroy();
      await recorder.close();
    },
  };
}
