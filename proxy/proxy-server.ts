import { createServer, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ClientIdentity, type ClientsBy } from '../src/control/client-identity.js';
import { clientLabels } from '../src/control/client-labels.js';
import { ControlPlane, DEFAULT_MAX_STREAMS } from '../src/control/control-plane.js';
import { ExchangeFeed } from '../src/control/exchange-feed.js';
import { RefusedHandshakes } from '../src/control/refused-handshakes.js';
import { TestVerdicts } from '../src/control/test-verdicts.js';
import { hostAllowed, isLoopback } from '../src/http/host-names.js';
import { listen } from '../src/http/listen.js';
import { OperationsLog } from '../src/operations/log.js';
import type { OperationsMetrics } from '../src/operations/metrics.js';
import type { Rotation } from '../src/operations/recording-writer.js';
import { type SessionNames, sessionRedaction } from '../src/redaction/index.js';
import { HostContexts } from '../src/tls/host-contexts.js';
import { caDirectory, existingCaCertificate, loadOrCreateCa } from '../src/tls/local-ca.js';
import { upstreamTrust } from '../src/tls/trust.js';
import { ClientTally, clientVerdicts } from '../src/validate/client-tally.js';
import type { Headers } from '../src/validate/exchange.js';
import { TrafficState } from '../src/validate/traffic.js';
import { ClientConnection } from './client-connection.js';
import { ConnectionLimit } from './connection-limit.js';
import { TrafficLog } from './exchange-log.js';
import { type ConnectTo, connectionFor, ForwardDoor, type InterceptedHost } from './forward-door.js';
import { judgeAndRecord } from './judge-and-record.js';
import { MemoryBudget } from './memory-budget.js';
import type { ProxyContext } from './proxy-context.js';
import { Recorder } from './recorder.js';
import { refusedHandshake } from './refused-handshake.js';
import { TargetPool } from './target-pool.js';
import { routeOf } from './upstream-route.js';

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
  /** When and how the --record file is rotated. */
  rotation?: Rotation;
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
  /** --clients-by: how an exchange's client team is told (default none). */
  clientsBy?: ClientsBy;
  log?: (line: string) => void;
  /** The session's log events (json mode's events; in text mode, `log`'s lines as ever). */
  events?: OperationsLog;
  /** Counters of a session that runs for days (--admin-port): the exchange path only increments them. */
  metrics?: OperationsMetrics;
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
  /** --clients-by: each client team's tally (empty without it), and the bounded metrics label of a client id. */
  clients: ClientTally;
  clientLabel: (client: string) => string;
  /** Gives the control API the session's verdicts so far (the CLI knows how they are reckoned). */
  verdicts(source: () => unknown): void;
  /**
   * Stops accepting, lets exchanges in flight finish (until the stop timeout, or until `hurry`
   * settles), flushes the recording.
   */
  close(hurry?: Promise<unknown>): Promise<void>;
}

export { VIOLATIONS_HEADER } from './proxy-context.js';

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
  const events = options.events ?? new OperationsLog({ text: log });
  const metrics = options.metrics;
  // A recording that cannot be written (a full disk) must not stop the traffic it records: it is
  // said once (src/operations/session-events.ts, which the log and the metrics hear) and the proxy
  // goes on forwarding and judging.
  const recorder = new Recorder(
    options.recordFile,
    options.harFile,
    () => {},
    target.href,
    metrics && ((bytes) => metrics.recorded(bytes)),
    options.rotation,
  );
  await recorder.ready();
  // The target is the service's base: what goes elsewhere under it is not the interface.
  const state = new TrafficState(target.href);
  const traffic = new TrafficLog(redact, redaction.headers, session.text);
  const budget = new MemoryBudget(options.memoryBudget ?? 256 * 1024 * 1024);
  // What the live page keeps is memory held like bodies: charged to the same budget.
  const feed = new ExchangeFeed(undefined, undefined, budget);
  const tests = new TestVerdicts(options.strict);
  const clientTally = new ClientTally();
  const identity =
    options.clientsBy && options.clientsBy.kind !== 'none'
      ? new ClientIdentity(options.clientsBy, session.text)
      : undefined;
  const clientLabel = clientLabels();
  if (identity) metrics?.labelClients(clientLabel);
  const handshakes = new RefusedHandshakes();
  const control = new ControlPlane({
    feed,
    tests,
    ...(identity ? { clients: () => clientVerdicts(clientTally.data, options.strict ?? false) } : {}),
    handshakes,
    title: `print-conformance proxy for ${target.href}`,
    targetBase: target.href,
    token: options.controlToken,
    // Streams may not take every connection: half of them at most, so the traffic still gets through.
    maxStreams: Math.max(1, Math.min(DEFAULT_MAX_STREAMS, Math.floor((options.maxConnections ?? 1000) / 2))),
  });
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
  const targetPool = new TargetPool();
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
    targetPool,
    ownAuthority: listenHost,
    hostAllowed: (value) => {
      const allowed = hostAllowed(value, listenHost, allowedHosts);
      // Every caller refuses the request when it is not.
      if (!allowed) metrics?.refused('host not allowed');
      return allowed;
    },
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
    ...judgeAndRecord({
      state,
      session,
      selected: options.selected,
      traffic,
      recorder,
      feed,
      tests,
      clients: identity ? { identity, tally: clientTally } : undefined,
      log,
      events,
      metrics,
      targetBase: target.href,
    }),
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
    ...(identity ? { clientOf: (headers: Headers) => identity.of(headers) } : {}),
    localClient: options.localClient ?? isLoopback,
    release: (connection) => connections.delete(connection as ClientConnection),
  };
  // Intercepted requests keep their paths under the target's origin, and their answers are passed
  // on as the service wrote them. A copy of the context above rather than an object inheriting from
  // it: every exchange reads a dozen of its members, and a read through the prototype cost more.
  // (What is set on the context later, the door and the proxy's own authority, is set on both.)
  const targetOrigin = new URL(target.origin);
  const intercepting: ProxyContext = {
    ...context,
    target: targetOrigin,
    targetBase: targetOrigin.href,
    rewriteUrls: false,
    // The service's own paths: /__print-conformance/ on it is the service's, forwarded like the rest.
    control: undefined,
    // The client reached this host through CONNECT or a request naming it: Host is no proof of anything.
    hostAllowed: () => true,
  };
  context.intercepting = intercepting;
  intercepting.intercepting = intercepting;
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
    connectTimeoutMs: context.answerTimeoutMs,
    // The handshake comes before the head: bounded as the head is (--headers-timeout, else --client-timeout).
    handshakeTimeoutMs: context.headersTimeoutMs || context.clientTimeoutMs,
    refused: (status, reason) => traffic.refused(status, reason),
    handshakeRefused: (authority, alert) => {
      const refusal = refusedHandshake(authority.host, authority.port, alert);
      // Told at once, once for each host and alert: a client retrying says nothing new.
      metrics?.refused('handshake refused');
      if (traffic.handshakeRefused(`${authority.host}:${authority.port} (${alert})`))
        events.handshakeRefused(`print-conformance proxy: ${refusal.line}`, {
          host: authority.host,
          port: authority.port,
          alert,
        });
      handshakes.record(refusal.handshake);
      // A row of its own on the live page, among the exchanges, in its place in time.
      feed.pushRefusedHandshake({ host: refusal.authority, reason: `${alert}: ${refusal.handshake.cause}` });
    },
    log,
  });
  intercepting.door = context.door;

  const limit = new ConnectionLimit(options.maxConnections ?? 1000, connections, log, (status, reason) => {
    metrics?.refused('connection limit');
    traffic.refused(status, reason);
  });
  const door = context.door;
  metrics?.reads({
    clientConnections: () => limit.open,
    tunnels: () => door?.openTunnels ?? 0,
    eventStreams: () => control.openStreams,
    liveWindowBytes: () => feed.heldBytes,
  });
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    if (limit.admit(socket)) accept(socket, context);
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
  intercepting.ownAuthority = context.ownAuthority;

  return {
    url: `${origin}/`,
    traffic,
    recordingFailure: () => recorder.failure,
    control,
    feed,
    tests,
    clients: clientTally,
    clientLabel,
    verdicts: (source) => control.setVerdicts(source),
    close: async (hurry?: Promise<unknown>) => {
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
      const hurried = hurry?.then(() => 'hurried' as const) ?? new Promise<never>(() => {});
      const ending = await Promise.race([drained(), late, hurried]);
      if (ending === 'late' && inFlight > 0)
        log(`stopping: cutting off ${inFlight} exchange(s) still in flight after ${stopTimeoutMs / 1000} s`);
      else if (ending === 'hurried' && inFlight > 0)
        log(`stopping: cutting off ${inFlight} exchange(s) still in flight (stopped again)`);
      clearTimeout(timer);
      stopping = true;
      for (const connection of connections.keys()) connection.cutOff();
      // Tunnels have no exchange to finish: they are cut off with the rest.
      limit.destroyAll();
      targetPool.closeAll();
      // Cut-off exchanges are recorded as their connections close.
      await drained();
      await closed;
      await recorder.close();
    },
  };
}
