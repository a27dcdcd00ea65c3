import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTROL_PREFIX, ControlPlane } from '../control/control-plane.js';
import { ExchangeFeed } from '../control/exchange-feed.js';
import { TestVerdicts } from '../control/test-verdicts.js';
import { listen } from '../http/listen.js';
import { sameSecret } from '../http/same-secret.js';
import { mediaType } from '../validate/exchange.js';
import { fileKindOf } from '../validate/magic.js';
import type { TallyData } from '../validate/tally.js';
import { readCheckoutRequest } from './checkout-reader.js';
import { answerControl } from './control-answer.js';
import { CONFORMANT, type Dialect, type OutgoingAnswer } from './dialect.js';
import { type Fault, FaultPlan } from './faults.js';
import { refusedForeignHost, type ServiceNames } from './foreign-host.js';
import { HttpError } from './http-error.js';
import { orderStatus, orderView } from './order-view.js';
import { answerPayment, isPaymentPath, settlePayment } from './payment-flow.js';
import { decodeUtf8, readSmallBody } from './request-body.js';
import { Responder } from './responder.js';
import { type CheckoutRecord, ReferenceStore } from './store.js';
import { type ReceivedFile, receiveMultipartUpload, receiveRawUpload } from './upload-receiver.js';
import { type WebhookOptions, Webhooks } from './webhooks.js';
import { noteRequestBody, ServiceWitness } from './witness.js';

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
  control?: { token?: string };
  /**
   * When given, a request whose Host is not an IP address, localhost, the listening host, the
   * public URL's host or one of these names is refused (DNS rebinding, as the proxy refuses it).
   */
  allowedHosts?: readonly string[];
  /** Called after each order or payment status change (`serve --webhook-url`). */
  webhooks?: WebhookOptions;
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
  close(): Promise<void>;
}

const BASE_PATH = '/v2/';
/** The first path segments under the base that name a resource (oauth is answered before these). */
const KNOWN_RESOURCES = new Set(['orders', 'checkout', 'files']);
const SMALL_BODY_LIMIT = 1024 * 1024;
export const DEFAULT_MAX_UPLOAD = 2 * 1024 ** 3;

export async function startReferenceService(options: ReferenceOptions = {}): Promise<ReferenceService> {
  const dialect: Dialect = { ...CONFORMANT, ...options.dialect };
  const store = new ReferenceStore();
  const uploadFolder = mkdtempSync(join(tmpdir(), 'print-conformance-uploads-'));
  const maxUpload = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD;
  const issuedTokens = new Set<string>();
  const faults = new FaultPlan(options.faults);
  const authRequired = Boolean(options.token || options.clientId || faults.tokenLifetime);
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

  function checkoutModel(record: CheckoutRecord, base: string): Record<string, unknown> {
    const model: Record<string, unknown> = {
      amount: record.amount,
      status: record.status,
      paymentUrl: `${base}payments/${record.paymentId}/start`,
    };
    if (record.returnUrl !== undefined) model.returnUrl = record.returnUrl;
    model.billing = { address: { ...record.address, ...dialect.extraAddressMembers } };
    return model;
  }

  function authorisation(request: IncomingMessage): 'granted' | 'refused' | 'expired' {
    if (!authRequired) return 'granted';
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (!match?.[1]) return 'refused';
    const given = match[1];
    const known = (options.token !== undefined && sameSecret(given, options.token)) || issuedTokens.has(given);
    if (!known) return 'refused';
    return faults.tokenExpired(given) ? 'expired' : 'granted';
  }

  async function receiveUpload(request: IncomingMessage): Promise<ReceivedFile> {
    const type = mediaType(request.headers['content-type']);
    if (type === 'multipart/form-data') {
      if (!dialect.acceptMultipart)
        throw new HttpError(415, 'multipart/form-data is not supported', ['Send the raw file.']);
      return receiveMultipartUpload(request, uploadFolder, maxUpload, dialect.uploadTypes, {
        firstPartIsFile: dialect.multipartFirstPartIsFile === true,
        failsOnNonAsciiFilename: dialect.multipartFailsOnNonAsciiFilename === true,
        ...(dialect.multipartFileField ? { fileField: dialect.multipartFileField } : {}),
      });
    }
    if (!type || !dialect.uploadTypes.includes(type)) {
      throw new HttpError(415, `Content-Type ${type ?? '(none)'} is not a supported file type`, [
        `Send one of: ${dialect.uploadTypes.join(', ')}.`,
      ]);
    }
    return { ...(await receiveRawUpload(request, uploadFolder, maxUpload)), declaredType: type };
  }

  async function handle(request: IncomingMessage, responder: Responder, segments: string[]) {
    const method = request.method ?? 'GET';
    const base = publicBase;
    const [resource, code, extra] = segments;
    await faults.apply(method, resource);
    const allow = (...methods: string[]) => {
      if (!methods.includes(method))
        throw new HttpError(405, `${method} is not allowed here`, [`Use ${methods.join(' or ')}.`], {
          allow: methods.join(', '),
        });
    };

    if (resource === 'oauth' && code === undefined) {
      allow('POST');
      const form = new URLSearchParams(decodeUtf8(await readSmallBody(request, SMALL_BODY_LIMIT)));
      if (form.get('grant_type') !== 'client_credentials')
        throw new HttpError(400, 'grant_type must be client_credentials');
      if (
        options.clientId !== undefined &&
        (form.get('client_id') !== options.clientId ||
          !sameSecret(form.get('client_secret') ?? '', options.clientSecret ?? ''))
      ) {
        throw new HttpError(401, 'invalid client credentials');
      }
      const token = randomBytes(24).toString('base64url');
      issuedTokens.add(token);
      responder.plainJson(200, { access_token: token, token_type: 'bearer', expires_in: 14399, scope: 'orders' });
      return;
    }

    // Nothing lives here (outside the base, or no resource of the interface): say so before asking
    // for a token, so a client that missed /v2/ learns its base URL is wrong, not its credentials.
    if (!KNOWN_RESOURCES.has(resource ?? '')) {
      if (method !== 'GET' && method !== 'HEAD') request.resume();
      throw new HttpError(404, `nothing at ${request.url}`, [`The interface lives under ${BASE_PATH}.`]);
    }

    const access = authorisation(request);
    if (access === 'expired') {
      throw new HttpError(401, 'the access token expired', ['Get a new token from POST oauth.'], {
        'www-authenticate': 'Bearer error="invalid_token", error_description="the access token expired"',
      });
    }
    if (access === 'refused') {
      throw new HttpError(
        401,
        'missing, expired or invalid access token',
        ['Get a token from POST oauth and send it as Authorization: Bearer.'],
        { 'www-authenticate': 'Bearer' },
      );
    }

    if (resource === 'orders' && code === undefined) {
      allow('POST');
      const text = decodeUtf8(await readSmallBody(request, SMALL_BODY_LIMIT));
      let items: { productId: string; quantity: number }[] = [{ productId: 'boek-a5-250', quantity: 1 }];
      if (text.trim() !== '') {
        let body: { items?: { productId?: unknown; quantity?: unknown }[] };
        try {
          body = JSON.parse(text);
        } catch {
          throw new HttpError(400, 'the order is not valid JSON');
        }
        if (Array.isArray(body?.items) && body.items.length > 0) {
          items = body.items.map((item) => ({
            productId: typeof item?.productId === 'string' ? item.productId : 'boek-a5-250',
            quantity: typeof item?.quantity === 'number' && item.quantity > 0 ? item.quantity : 1,
          }));
        }
      }
      const order = store.placeOrder(items);
      responder.plainJson(201, orderView(store, order.id, base), { location: `${base}orders/${order.id}` });
      return;
    }

    if (resource === 'orders' && code !== undefined && extra === undefined) {
      allow('GET');
      if (!store.orders.has(code)) throw new HttpError(404, `no order ${code}`);
      responder.plainJson(200, orderView(store, code, base));
      return;
    }

    if (resource === 'checkout' && code !== undefined && extra === undefined) {
      allow('GET', 'POST');
      const record = store.checkouts.get(code);
      if (!record) {
        if (method === 'POST') request.resume();
        throw new HttpError(404, 'unknown checkout code', ['Use the checkout URL given by the order.']);
      }
      if (method === 'POST') {
        // As the real service refuses an action in the wrong state: a paid checkout is not set up again.
        if (record.status === 'Successful') {
          throw new HttpError(403, 'the payment of this checkout succeeded; it cannot be set up again', [
            'Read its status with GET checkout/{code}.',
          ]);
        }
        const sent = await readCheckoutRequest(request, dialect);
        if (dialect.keepUnsentMembers && record.setUp) {
          record.returnUrl = sent.returnUrl ?? record.returnUrl;
          record.address = { ...record.address, ...sent.address };
          record.status = 'Open';
          store.renewPayment(record);
        } else if (dialect.replaceSetUp || !record.setUp) {
          record.returnUrl = sent.returnUrl;
          record.address = sent.address;
          record.status = 'Open';
          record.setUp = true;
          // The payment URL of an earlier set-up stops working: it was for other terms.
          store.renewPayment(record);
        }
        const headers: Record<string, string> =
          dialect.setUpStatus === 201 ? { location: `${base}checkout/${code}` } : {};
        responder.resource(dialect.setUpStatus, 'checkout', checkoutModel(record, base), headers);
      } else {
        responder.resource(200, 'checkout', checkoutModel(record, base));
      }
      return;
    }

    if (resource === 'files' && code !== undefined && extra === undefined) {
      allow('POST');
      const slot = store.uploads.get(code);
      if (!slot) {
        request.resume();
        throw new HttpError(404, 'unknown upload code', ['Use the upload URL given by the order.']);
      }
      const refusal = dialect.refuseUpload?.({ endpoint: 'upload', method, headers: request.headers });
      if (refusal) {
        request.resume();
        throw new HttpError(refusal, 'this service does not take the upload as it was sent');
      }
      const file = await receiveUpload(request);
      const multipart = mediaType(request.headers['content-type']) === 'multipart/form-data';
      if (dialect.uploadFails?.({ size: file.size, multipart })) {
        rmSync(file.path, { force: true });
        throw new Error('the upload handler failed');
      }
      const head = file.head.toString('base64');
      noteRequestBody(
        request,
        multipart
          ? {
              size: file.size,
              parts: [{ name: 'file', contentType: file.declaredType, size: file.size, headBase64: head }],
            }
          : { size: file.size, sha256: file.sha256, headBase64: head },
      );
      const kind = fileKindOf(file.head);
      if (!kind) {
        rmSync(file.path, { force: true });
        throw new HttpError(400, 'the file is not a PDF, PNG or JPEG', [
          'Check the file; its first bytes name no supported type.',
        ]);
      }
      if (slot.role === 'content' && dialect.contentKinds && !dialect.contentKinds.includes(kind)) {
        rmSync(file.path, { force: true });
        throw new HttpError(400, `an item's content takes ${dialect.contentKinds.join(' or ')}, not ${kind}`, [
          'Send images to the cover slot.',
        ]);
      }
      // The file is kept while the service runs (the folder goes at close); a new upload replaces it.
      const order = store.orders.get(slot.orderId);
      const statusBefore = order && orderStatus(store, order);
      if (slot.path) rmSync(slot.path, { force: true });
      slot.path = file.path;
      slot.status = 'Uploaded';
      slot.fileType = kind;
      slot.size = file.size;
      slot.sha256 = file.sha256;
      const fileType =
        dialect.fileTypeOf?.({
          kind,
          declaredType: file.declaredType,
          fileName: file.fileName,
          multipart,
          head: file.head,
        }) ?? kind;
      responder.resource(200, 'upload-result', { fileName: slot.role, fileType });
      // The last file of a paid order moves it to Processing.
      if (order && orderStatus(store, order) !== statusBefore) statusChanged(order.id);
      return;
    }

    if (method !== 'GET' && method !== 'HEAD') request.resume();
    throw new HttpError(404, `nothing at ${request.url}`, [`The interface lives under ${BASE_PATH}.`]);
  }

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
    if (names && refusedForeignHost(request, response, names)) return;
    if (control && request.url?.startsWith(CONTROL_PREFIX)) {
      answerControl(control, request, response, publicBase);
      return;
    }
    if (control) {
      witness ??= new ServiceWitness(publicBase, feed, tests, (headers) => control.testOf(headers));
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
  let witness: ServiceWitness | undefined;
  const control = options.control
    ? new ControlPlane({
        feed,
        tests,
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
    close: () =>
      new Promise<void>((resolve) => {
        control?.close();
        void webhooks.close();
        server.close(() => {
          rmSync(uploadFolder, { recursive: true, force: true });
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
