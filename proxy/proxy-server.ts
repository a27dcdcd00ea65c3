import { createServer, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ControlPlane, DEFAULT_MAX_STREAMS } from '../src/control/control-plane.js';
import { ExchangeFeed } from '../src/control/exchange-feed.js';
import { RefusedHandshakes } from '../src/control/refused-handshakes.js';
import { TestVerdicts } from '../src/control/test-verdicts.js';
import { splitObservations } from '../src/findings/observations.js';
import { hostAllowed, isLoopback } from '../src/http/host-names.js';
import { listen } from '../src/http/listen.js';
import { type SessionNames, sessionRedaction } from '../src/redaction/index.js';
import { HostContexts } from '../src/tls/host-contexts.js';
import { caDirectory, existingCaCertificate, loadOrCreateCa } from '../src/tls/local-ca.js';
import { upstreamTrust } from '../src/tls/trust.js';
import type { Exchange } from '../src/validate/exchange.js';
import type { Judgement } from '../src/validate/index.js';
import { judgeTraffic, type TrafficJudgement, TrafficState } from '../src/validate/traffic.js';
import { ClientConnection } from './client-connection.js';
import { TrafficLog } from './exchange-log.js';
import { type ConnectTo, connectionFor, ForwardDoor, type InterceptedHost } from './forward-door.js';
import { MemoryBudget } from './memory-budget.js';
import { describeViolations, type ProxyContext } from './proxy-context.js';
import { type RecordedExchange, Recorder } from './recorder.js';
import { refusedHandshake } from './refused-handshake.js';
import { lingerThenClose } from './socket-writes.js';
import { routeOf } from './upstream.js';

// A reverse proxy that forwards every byte unchanged (but for absolute URLs that point at the
// target), watches both bodies as they pass, judges each exchange with the core, and records it.
// It speaks HTTP/1.1 on raw sockets (see client-connection.ts) rather than through node:http or
// http-proxy: on two cores shared with the client and the service, forwarding through node:http's
// request and response objects cost about twice the CPU per exchange of the whole validation.

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
  redact?: Partial<SessionNames>;
  /** Rule IDs whose violations are recorded, logged and named in answers (default: all). */
  selected?: Set<string>;
  strict?: boolean;
  connectTimeoutMs?: number;
  /** A client that sends nothing for this long, in its head or its body, is cut off (default 30 s). */
  clientTimeoutMs?: number;
  /** Once the target has begun an answer, how long it may send nothing more before the exchange fails (default 60 s). */
  targetTimeoutMs?: number;
  /** A request head must be whole this long after its first byte, else 408 (default 20 s; 0: no limit). */
  headersTimeoutMs?: number;
  /** Bytes of bodies held for validation, all connections together; past it bodies pass unvalidated (default 256 MiB). */
  memoryBudget?: number;
  /** Client connections open at once; beyond them a connection is answered 503 and closed (default 1000). */
  maxConnections?: number;
  /** On close, exchanges still in flight after this long are cut off and recorded as such (default 10 s). */
  stopTimeoutMs?: number;
  /** Host names clients may address the proxy by, besides IP addresses, localhost and `host`. */
  allowedHosts?: string[];
  /** More hosts whose CONNECTs are intercepted like the target's (its host and port always are). */
  intercept?: InterceptedHost[];
  /** Connections for a host and port go elsewhere (curl's --connect-to), TLS still naming the host. */
  connectTo?: ConnectTo[];
  /** More CAs (PEM) a target's certificate may verify against, besides the system's and the local CA. */
  targetCa?: string[];
  /** The local CA's folder (default: caDirectory()). */
  caDir?: string;
  /** When given, the control API wants `Authorization: Bearer` this, and answers other machines too. */
  controlToken?: string;
  /** Which client addresses are this machine's, and may reach other hosts through the proxy (default: loopback). */
  localClient?: (address: string | undefined) => boolean;
  log?: (line: string) => void;
}

export interface ProxyHandle {
  url: string;
  /** What the session saw: the judged exchanges' tally, and what never reached the target. */
  traffic: TrafficLog;
  /** Why the recording is incomplete (a file that could not be written), if it is. */
  recordingFailure(): string | undefined;
  /** The control API and live page: its feed of judged exchanges, the client tests' verdicts. */
  control: ControlPlane;
  feed: ExchangeFeed;
  tests: TestVerdicts;
  /** Gives the control API the session's verdicts so far (the CLI knows how they are reckoned). */
  verdicts(source: () => unknown): void;
  /** Stops accepting, lets exchanges in flight finish, flushes the recording. */
  close(): Promise<void>;
}

export { VIOLATIONS_HEADER } from './proxy-context.js';

const TOO_MANY = 'too many connections; try again later';

/** A connection over the limit: told so in HTTP (nginx's limit_conn answers 503 too), and closed. */
function refuseConnection(socket: Socket): void {
  const body = `{"message":"print-conformance proxy: ${TOO_MANY}"}`;
  socket.on('error', () => {});
  // What the client sends is read and dropped, so that closing does not reset the connection
  // before the answer is read.
  socket.resume();
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
  );
  lingerThenClose(socket);
}

/** Why the proxy refused a request, from the body it answered with. */
function refusalReason(status: number, body: string): string {
  let message = body;
  try {
    message = (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    // A plain message, or no body at all.
  }
  message = message.replace(/^print-conformance proxy: /, '');
  if (message) return message;
  return status === 405 ? 'a CONNECT request (the proxy is no forward proxy)' : 'an upgrade request (not forwarded)';
}

/** Method and path of an exchange for the log: never the query, which may carry a token. */
function requestLine(exchange: Exchange): string {
  return `${exchange.request.method} ${new URL(exchange.request.url).pathname}`;
}

export async function startProxy(options: ProxyOptions): Promise<ProxyHandle> {
  const target = new URL(options.target);
  // It would be written into recordings and error answers with every URL of the target.
  if (target.username || target.password) throw new Error('the target URL must not hold a user name or password');
  if (!target.pathname.endsWith('/')) target.pathname += '/';
  const validateLimit = options.validateLimit ?? 8 * 1024 * 1024;
  const redaction: SessionNames = {
    headers: options.redact?.headers ?? [],
    members: options.redact?.members ?? [],
    secrets: options.redact?.secrets ?? [],
  };
  const session = sessionRedaction(redaction);
  const redact = session.exchange;
  const log = options.log ?? (() => {});
  // A recording that cannot be written (a full disk) must not stop the traffic it records: the
  // proxy says so once and goes on forwarding and judging.
  const recorder = new Recorder(
    options.recordFile,
    options.harFile,
    (message) => log(`print-conformance: ${message}; exchanges from now on are not recorded there`),
    target.href,
  );
  await recorder.ready();
  // The target is the service's base: what goes elsewhere under it is not the interface.
  const state = new TrafficState(target.href);
  const traffic = new TrafficLog(redact, redaction.headers, session.text);
  const budget = new MemoryBudget(options.memoryBudget ?? 256 * 1024 * 1024);
  // What the live page keeps is memory held like bodies: charged to the same budget.
  const feed = new ExchangeFeed(undefined, undefined, budget);
  const tests = new TestVerdicts(options.strict);
  const handshakes = new RefusedHandshakes();
  const control = new ControlPlane({
    feed,
    tests,
    handshakes,
    title: `print-conformance proxy for ${target.href}`,
    targetBase: target.href,
    token: options.controlToken,
    // Streams may not take every connection: half of them at most, so the traffic still gets through.
    maxStreams: Math.max(1, Math.min(DEFAULT_MAX_STREAMS, Math.floor((options.maxConnections ?? 1000) / 2))),
  });
  // The tally takes each exchange's judgement from its one judging on the way through. Every
  // exchange is recorded in the same turn as its last judging, so the last judgement made is its
  // own (a request blocked in enforce mode is judged as a preview, another object, just before).
  // Kept so rather than in a WeakMap, which cost more per exchange than the tally itself.
  let lastJudged: Exchange | undefined;
  let lastJudgement: Judgement | undefined;
  let lastScope: TrafficJudgement['scope'] | undefined;
  const listenHost = options.host ?? '127.0.0.1';
  const allowedHosts = options.allowedHosts ?? [];
  /** Connections reading requests, each with the socket accepted for it (under TLS, the one TLS runs on). */
  const connections = new Map<ClientConnection, Socket>();
  let stopping = false;
  let inFlight = 0;
  let settled: (() => void) | undefined;

  const clientTimeoutMs = options.clientTimeoutMs ?? 30_000;
  // A head is due within the headers timeout of its first byte, and never later than twice the
  // client timeout: one byte every so often restarts the client's idle timer, not this deadline.
  // (Twice, so that a head that stops coming altogether is the idle timer's, closed as before.)
  const headersTimeoutMs = [options.headersTimeoutMs ?? 20_000, 2 * clientTimeoutMs]
    .filter((ms) => ms > 0)
    .reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
  const caDir = caDirectory(options.caDir);
  const localCa = existingCaCertificate(caDir);
  const trustWith = (ca: string | undefined) =>
    target.protocol === 'https:' ? upstreamTrust([...(ca ? [ca] : []), ...(options.targetCa ?? [])]) : undefined;
  const trust = trustWith(localCa);
  const targetPort = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  const connectTo = options.connectTo ?? [];
  const direct = routeOf(target, trust);
  const to = connectionFor({ host: direct.host, port: direct.connectPort }, connectTo);
  const route = { ...direct, connectHost: to.host, connectPort: to.port };
  // Certificates for intercepted hosts come from the local CA, made the first time one is needed.
  let hostContexts: Promise<HostContexts> | undefined;
  const contextFor = (host: string) => {
    hostContexts ??= loadOrCreateCa(caDir).then((ca) => {
      // A CA made only now is trusted upstream from now on too (a serve --tls target issued by it).
      if (ca.certPem !== localCa) route.trust = trustWith(ca.certPem);
      return new HostContexts(ca.maker);
    });
    hostContexts.catch(() => {
      hostContexts = undefined;
    });
    return hostContexts.then((contexts) => contexts.contextFor(host));
  };
  const context: ProxyContext = {
    target,
    targetBase: target.href,
    route,
    ownAuthority: listenHost,
    hostAllowed: (value) => hostAllowed(value, listenHost, allowedHosts),
    validateLimit,
    tapOptions: {
      keepLimit: validateLimit,
      keepBinary: options.recordBodies ?? false,
      budget,
    },
    enforce: options.mode === 'enforce',
    rewriteUrls: options.rewriteUrls !== false,
    violationsHeader: options.violationsHeader !== false,
    clientTimeoutMs,
    headersTimeoutMs: Number.isFinite(headersTimeoutMs) ? headersTimeoutMs : 0,
    answerTimeoutMs: options.connectTimeoutMs ?? 10_000,
    targetTimeoutMs: options.targetTimeoutMs ?? 60_000,
    judge: (exchange) => {
      lastJudged = exchange;
      lastJudgement = undefined;
      lastScope = undefined;
      try {
        const sorted = judgeTraffic(exchange, state);
        lastScope = sorted.scope;
        const judged = sorted.judgement;
        // Order answers and what is not the interface are judged by no rule.
        if (!judged) return [];
        // Redacted where they are made: whatever quotes them (the violations header, the log,
        // the summaries, enforce mode's answer, the recording) quotes them redacted.
        judged.violations = session.findings(judged.violations);
        lastJudgement = judged;
        const { violations } = judged;
        return options.selected ? violations.filter((v) => options.selected?.has(v.rule)) : violations;
      } catch (error) {
        // Judging runs in the middle of forwarding: whatever goes wrong in it must not take the
        // proxy down or lose the exchange. It is forwarded and recorded as not judged.
        const message = `print-conformance could not judge this exchange: ${(error as Error).message}`;
        exchange.error = exchange.error ?? message;
        log(`${requestLine(exchange)}: ${session.text(message)}`);
        return [];
      }
    },
    record: (exchange, started) => {
      exchange.durationMs = Math.round(performance.now() - started);
      const { violations: shown, observations } = splitObservations(exchange.violations);
      const own = lastJudged === exchange || exchange.blocked;
      const judged = Boolean(own && lastJudgement !== undefined);
      traffic.record(exchange, own ? lastJudgement : undefined, own ? lastScope : undefined);
      lastJudged = undefined;
      lastJudgement = undefined;
      lastScope = undefined;
      const split: RecordedExchange = { ...exchange, violations: shown, observations };
      const redacted = redact(split) as RecordedExchange;
      recorder.record(redacted);
      // The live page and the control API read what the recording holds, findings and all.
      feed.push({ ...redacted, violations: exchange.violations }, judged, exchange.test);
      if (exchange.test !== undefined) tests.record(exchange.test, judged, exchange.violations);
      if (shown.length > 0 || exchange.error) {
        log(
          `${requestLine(exchange)} → ${exchange.response?.status ?? redacted.error}${shown.length ? `  ${describeViolations(shown)}` : ''}`,
        );
      }
    },
    refused: (status, body) => traffic.refused(status, refusalReason(status, body)),
    begin: () => {
      inFlight += 1;
      let over = false;
      return () => {
        if (over) return;
        over = true;
        inFlight -= 1;
        if (inFlight === 0) settled?.();
      };
    },
    stopping: () => stopping,
    log,
    passedOn: (authority) => traffic.passedOn(`${authority.host}:${authority.port}`),
    control,
    testOf: (headers) => control.testOf(headers),
    localClient: options.localClient ?? isLoopback,
    release: (connection) => connections.delete(connection as ClientConnection),
  };
  // Recording runs at the end of forwarding, some of it once a digest comes back from the worker
  // thread (a promise): whatever goes wrong in it loses that exchange's record, never the proxy.
  const recordExchange = context.record;
  context.record = (exchange, started) => {
    try {
      recordExchange(exchange, started);
    } catch (error) {
      log(`print-conformance could not record ${requestLine(exchange)}: ${session.text((error as Error).message)}`);
    }
  };
  // Intercepted requests keep their paths under the target's origin, and their answers are passed
  // on as the service wrote them. Made from the context above, so that it shares every later change.
  const targetOrigin = new URL(target.origin);
  const intercepting: ProxyContext = Object.create(context);
  Object.assign(intercepting, {
    target: targetOrigin,
    targetBase: targetOrigin.href,
    rewriteUrls: false,
    // The service's own paths: /__print-conformance/ on it is the service's, forwarded like the rest.
    control: undefined,
    // The client reached this host through CONNECT or a request naming it: Host is no proof of anything.
    hostAllowed: () => true,
  });
  context.intercepting = intercepting;
  const accept = (socket: Socket, connectionContext: ProxyContext, accepted: Socket = socket): void => {
    const connection = new ClientConnection(socket, connectionContext);
    connections.set(connection, accepted);
    socket.once('close', () => connections.delete(connection));
  };
  context.door = new ForwardDoor({
    intercepted: [{ host: route.host.toLowerCase(), port: targetPort }, ...(options.intercept ?? [])],
    connectTo,
    hostContext: contextFor,
    localClient: options.localClient ?? isLoopback,
    intercept: (secure: TLSSocket, _authority, accepted) => accept(secure, intercepting, accepted),
    passedOn: (authority) => context.passedOn?.(authority),
    refused: (status, reason) => traffic.refused(status, reason),
    handshakeRefused: (authority, alert) => {
      const refusal = refusedHandshake(authority.host, authority.port, alert);
      // Told at once, once for each host and alert: a client retrying says nothing new.
      if (traffic.handshakeRefused(`${authority.host}:${authority.port} (${alert})`))
        log(`print-conformance proxy: ${refusal.line}`);
      handshakes.record(refusal.handshake);
      // A row of its own on the live page, among the exchanges, in its place in time.
      feed.pushRefusedHandshake({ host: refusal.authority, reason: `${alert}: ${refusal.handshake.cause}` });
    },
    log,
  });

  const maxConnections = options.maxConnections ?? 1000;
  /**
   * Every connection accepted holds a place until its socket closes, whatever it becomes: a
   * connection handed over to a tunnel, to TLS or to an event stream leaves `connections` (it has
   * no exchange to make room with) but still holds a descriptor, and still counts here.
   */
  const sockets = new Set<Socket>();
  let full = false;
  /**
   * Every place is taken: a connection idle between requests (the longest idle first), else one
   * whose head has trickled in the longest, gives way, so that slow or idle clients cannot lock
   * out a new one. A connection that closes takes its place out of the set once it is gone.
   */
  const makeRoom = () => {
    const now = performance.now();
    let best: ClientConnection | undefined;
    let bestSpare: { idle: boolean; since: number } | undefined;
    for (const connection of connections.keys()) {
      const spare = connection.spareFor(now);
      if (!spare) continue;
      const better =
        !bestSpare ||
        (spare.idle && !bestSpare.idle) ||
        (spare.idle === bestSpare.idle && spare.since < bestSpare.since);
      if (better) {
        best = connection;
        bestSpare = spare;
      }
    }
    if (!best) return;
    best.giveWay();
    // Counted out at once: it is closing, and no longer holds a place.
    const accepted = connections.get(best);
    connections.delete(best);
    if (accepted) sockets.delete(accepted);
  };
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    if (sockets.size >= maxConnections) makeRoom();
    if (sockets.size >= maxConnections) {
      if (!full) log(`${maxConnections} client connections are open (--max-connections): more are answered 503`);
      full = true;
      traffic.refused(503, TOO_MANY);
      refuseConnection(socket);
      return;
    }
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size < maxConnections) full = false;
    });
    accept(socket, context);
  });
  // One timer for all connections, rather than one per request: heads that take too long are
  // found within an eighth of the headers timeout (at most half a second late).
  const sweep =
    context.headersTimeoutMs > 0
      ? setInterval(
          () => {
            const now = performance.now();
            for (const connection of connections.keys()) connection.checkHeadDeadline(now);
          },
          Math.min(500, Math.max(10, context.headersTimeoutMs / 8)),
        ).unref()
      : undefined;
  const origin = await listen(server, options.port ?? 0, listenHost);
  context.ownAuthority = new URL(origin).host;

  return {
    url: `${origin}/`,
    traffic,
    recordingFailure: () => recorder.failure,
    control,
    feed,
    tests,
    verdicts: (source) => control.setVerdicts(source),
    close: async () => {
      clearInterval(sweep);
      control.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const drained = () =>
        inFlight === 0
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              settled = resolve;
            });
      for (const connection of connections.keys()) connection.stop();
      // Exchanges in flight may finish, but a client that keeps an upload open cannot hold the
      // proxy forever: past the stop timeout their connections are cut and they are recorded so.
      const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), stopTimeoutMs);
      });
      if ((await Promise.race([drained(), late])) === 'late')
        log(`stopping: cutting off ${inFlight} exchange(s) still in flight after ${stopTimeoutMs / 1000} s`);
      clearTimeout(timer);
      stopping = true;
      for (const connection of connections.keys()) connection.cutOff();
      // Tunnels have no exchange to finish: they are cut off with the rest.
      for (const socket of sockets) socket.destroy();
      // Cut-off exchanges are recorded as their connections close.
      await drained();
      await closed;
      await recorder.close();
    },
  };
}
