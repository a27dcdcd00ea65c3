import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientIdentity } from '../control/client-identity.js';
import { clientLabels } from '../control/client-labels.js';
import { CONTROL_PREFIX, ControlPlane } from '../control/control-plane.js';
import { ExchangeFeed } from '../control/exchange-feed.js';
import { TestVerdicts } from '../control/test-verdicts.js';
import { listen } from '../http/listen.js';
import type { OperationsMetrics } from '../operations/metrics.js';
import { redactText } from '../redaction/index.js';
import { type ClientsBy, ClientTally, clientVerdicts } from '../validate/client-tally.js';
import type { TallyData } from '../validate/tally.js';
import { answerControl } from './control-answer.js';
import { CONFORMANT, type Dialect, type OutgoingAnswer } from './dialect.js';
import { type Fault, FaultPlan } from './faults.js';
import { refusedForeignHost, type ServiceNames } from './foreign-host.js';
import { HttpError } from './http-error.js';
import { orderStatus } from './order-view.js';
import { answerPayment, isPaymentPath, settlePayment } from './payment-flow.js';
import { BASE_PATH, createResourceHandler } from './resource-handler.js';
import { Responder } from './responder.js';
import { ReferenceStore } from './store.js';
import { type WebhookOptions, Webhooks } from './webhooks.js';
import { ServiceWitness } from './witness.js';

export interface ReferenceOptions {
  host?: string;
  port?: number;
  /** Largest upload accepted, in bytes (default 2 GiB). */
  maxUploadBytes?: number;
  /** When set, every request but POST oauth needs `Authorization: Bearer <token>`. */
  token?: string;
  /** When set, POST oauth issues tokens only to this client, and tokens are required. */
  clientId?: string;
  clientSecret?: string;
  dialect?: Partial<Dialect>;
  /**
   * The base URL clients reach the service at, when it is not the address it listens on (behind a
   * reverse proxy, a port mapping): the URLs it hands out start with it. Ends in "/".
   */
  publicUrl?: string;
  /** Chosen faults (`serve --fault`): error answers, slow answers, expiring tokens, declined payments. */
  faults?: Fault[];
  /** Serve HTTPS with this certificate (chain) and key, PEM. */
  tls?: { certPem: string; keyPem: string };
  /**
   * The control API and live page under /__print-conformance/, with every exchange judged as the
   * proxy judges traffic (serve turns it on; the suite's embedded target has no use for it).
   */
  control?: { token?: string; clientsBy?: ClientsBy };
  /**
   * When given, a request whose Host is not an IP address, localhost, the listening host, the
   * public URL's host or one of these names is refused (DNS rebinding, as the proxy refuses it).
   */
  allowedHosts?: readonly string[];
  /** Called after each order or payment status change (`serve --webhook-url`). */
  webhooks?: WebhookOptions;
  /** Counters of a service that runs for days (`serve --admin-port`). */
  metrics?: OperationsMetrics;
}

export interface ReferenceService {
  /** The base URL: what `run --base-url` takes; ends in "/". */
  baseUrl: string;
  /** The base of the URLs it hands out: `publicUrl` when given, else `baseUrl`. */
  publicUrl: string;
  server: Server;
  store: ReferenceStore;
  /** Where received files are kept while it runs (removed at close). */
  uploadFolder: string;
  /** The control API, when `control` was asked for. */
  control?: ControlPlane;
  /** The webhook calls made so far (none without webhook URLs). */
  webhooks: Webhooks;
  /** What the control API's exchanges showed so far, tallied as the proxy tallies traffic. */
  tally(): TallyData | undefined;
  /**
   * Stops accepting and closes idle connections. Without `drain`, requests in flight are cut at
   * once; with it, they may finish for `drain.ms`, or until `drain.hurry` settles.
   */
  close(drain?: { ms: number; hurry?: Promise<unknown> }): Promise<void>;
}

export const DEFAULT_MAX_UPLOAD = 2 * 1024 ** 3;

export async function startReferenceService(options: ReferenceOptions = {}): Promise<ReferenceService> {
  const dialect: Dialect = { ...CONFORMANT, ...options.dialect };
  const store = new ReferenceStore();
  const uploadFolder = mkdtempSync(join(tmpdir(), 'print-conformance-uploads-'));
  const maxUpload = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD;
  const faults = new FaultPlan(options.faults);
  const webhooks = new Webhooks(options.webhooks ?? { urls: [] });
  // A status change is told in the background: the answer that caused it goes out as it would without.
  const statusChanged = (orderId: string) => webhooks.notify(orderId);

  // The URLs handed out are built on the service's own address, never on the client's Host header:
  // a request naming another host must not make the service point its clients there.
  let publicBase = options.publicUrl?.replace(/\/?$/, '/') ?? '';
  const listenHost = options.host ?? '127.0.0.1';
  // The public URL's host is a name of the service: clients behind a proxy or a mapping use it.
  const names: ServiceNames | undefined = options.allowedHosts && {
    listenHost,
    allowed: [...options.allowedHosts, ...(publicBase ? [new URL(publicBase).hostname] : [])],
  };
  const handle = createResourceHandler({
    dialect,
    store,
    faults,
    uploadFolder,
    maxUpload,
    credentials: { token: options.token, clientId: options.clientId, clientSecret: options.clientSecret },
    publicBase: () => publicBase,
    statusChanged,
  });

  // A request the service cannot even read (a target that is no URL path, "//") is a 400 that
  // ends this request, never an exception that stops the service.
  const listener: RequestListener = (request, response) => {
    try {
      answer(request, response);
    } catch {
      request.resume();
      if (response.headersSent) response.destroy();
      else
        response
          .writeHead(400, { 'content-type': 'application/json', connection: 'close' })
          .end('{"message":"print-conformance: the request target is no URL path"}');
    }
  };
  const answer: RequestListener = (request, response) => {
    if (names && refusedForeignHost(request, response, names)) {
      options.metrics?.refused('host not allowed');
      return;
    }
    if (control && request.url?.startsWith(CONTROL_PREFIX)) {
      answerControl(control, request, response, publicBase);
      return;
    }
    if (control) {
      witness ??= new ServiceWitness(
        publicBase,
        feed,
        tests,
        (headers) => control.testOf(headers),
        options.metrics,
        clients,
      );
      witness.watch(request, response);
    }
    const url = new URL(request.url ?? '/', 'http://reference.invalid');
    const segments = url.pathname.startsWith(BASE_PATH)
      ? url.pathname.slice(BASE_PATH.length).split('/').filter(Boolean)
      : [];
    // The customer's payment screen: HTML for a browser, without the bearer token it does not have.
    if (isPaymentPath(segments)) {
      const publicHost = options.publicUrl ? new URL(publicBase).host : undefined;
      const paid = answerPayment(request, response, store, segments, {
        declinePayments: faults.declinesPayments,
        onStatusChange: statusChanged,
        ...(publicHost ? { publicHost } : {}),
      }).catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
      });
      paid.catch(() => response.destroy());
      return;
    }
    const endpoint: OutgoingAnswer['endpoint'] =
      segments[0] === 'checkout'
        ? 'checkout'
        : segments[0] === 'files'
          ? 'upload'
          : segments[0] === 'orders'
            ? 'orders'
            : segments[0] === 'oauth'
              ? 'oauth'
              : 'other';
    const responder = new Responder(request, response, dialect, endpoint);
    const handled = handle(request, responder, segments).catch((error: unknown) => {
      if (error instanceof HttpError) {
        responder.error(error.status, error.message, error.hints, {
          ...error.headers,
          ...(error.status === 413 ? { connection: 'close' } : {}),
        });
      } else {
        responder.error(500, 'internal error', []);
      }
      // Whatever the client still sends after a refusal is read and dropped, so the socket stays usable.
      if (!request.complete) request.resume();
    });
    // An answer that cannot even be written ends this request, never the service.
    handled.catch(() => response.destroy());
  };
  const feed = new ExchangeFeed();
  const tests = new TestVerdicts();
  // --clients-by: serve hands the tokens out itself, and watches its token calls as the proxy does.
  const clientsBy = options.control?.clientsBy;
  const clients =
    clientsBy && clientsBy.kind !== 'none'
      ? { identity: new ClientIdentity(clientsBy, (text) => redactText(text)), tally: new ClientTally() }
      : undefined;
  if (clients) options.metrics?.labelClients(clientLabels());
  let witness: ServiceWitness | undefined;
  const control = options.control
    ? new ControlPlane({
        feed,
        tests,
        ...(clients ? { clients: () => clientVerdicts(clients.tally.data, false) } : {}),
        title: 'print-conformance reference service',
        token: options.control.token,
        pay: (code, outcome) => settlePayment(store, code, outcome, faults.declinesPayments, statusChanged),
        setOrderStatus: (id, status) => {
          const order = store.orders.get(id);
          if (!order) return { status: 404, message: `no order ${id}` };
          const before = orderStatus(store, order);
          order.status = status;
          if (status !== before) statusChanged(id);
          return { status: 200 };
        },
        webhooks: () => webhooks.calls(),
      })
    : undefined;
  // HTTPS speaks HTTP/1.1 alone (ALPN), as the proxy in front of it does.
  const server: Server = options.tls
    ? createSecureServer({ cert: options.tls.certPem, key: options.tls.keyPem, ALPNProtocols: ['http/1.1'] }, listener)
    : createServer(listener);
  server.requestTimeout = 0; // uploads of a gigabyte and more take their time
  server.headersTimeout = 60_000;

  let openConnections = 0;
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: import('node:net').Socket) => {
    openConnections += 1;
    socket.once('close', () => {
      openConnections -= 1;
    });
  });
  options.metrics?.reads({
    clientConnections: () => openConnections,
    eventStreams: () => control?.openStreams ?? 0,
    liveWindowBytes: () => feed.heldBytes,
  });
  const listened = await listen(server, options.port ?? 0, listenHost);
  const origin = options.tls ? listened.replace(/^http:/, 'https:') : listened;
  const baseUrl = `${origin}${BASE_PATH}`;
  publicBase ||= baseUrl;

  return {
    baseUrl,
    publicUrl: publicBase,
    server,
    store,
    uploadFolder,
    control,
    webhooks,
    tally: () => witness?.tally.data,
    close: (drain) =>
      new Promise<void>((resolve) => {
        control?.close();
        void webhooks.close();
        let sweep: NodeJS.Timeout | undefined;
        let timer: NodeJS.Timeout | undefined;
        const cut = () => {
          clearInterval(sweep);
          clearTimeout(timer);
          server.closeAllConnections();
        };
        server.close(() => {
          cut();
          rmSync(uploadFolder, { recursive: true, force: true });
          resolve();
        });
        if (!drain) return cut();
        // Kept-alive connections go as soon as their request is answered.
        server.closeIdleConnections();
        sweep = setInterval(() => server.closeIdleConnections(), 50);
        timer = setTimeout(cut, drain.ms);
        void drain.hurry?.then(cut);
      }),
  };
}
