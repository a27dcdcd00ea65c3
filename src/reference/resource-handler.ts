// The interface's own resources (oauth, orders, checkout/{code}, files/{code}) as the reference
// service answers them: access tokens, order and checkout state, uploads. It stands apart from
// service.ts, which owns the server around it (listening, TLS, the control API, the payment page),
// so that what the service says to a client can be read in one place.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { sameSecret } from '../http/same-secret.js';
import { mediaType } from '../validate/exchange.js';
import { fileKindOf } from '../validate/magic.js';
import { readCheckoutRequest } from './checkout-reader.js';
import type { Dialect } from './dialect.js';
import type { FaultPlan } from './faults.js';
import { HttpError } from './http-error.js';
import { orderStatus, orderView } from './order-view.js';
import { decodeUtf8, readSmallBody } from './request-body.js';
import type { Responder } from './responder.js';
import type { CheckoutRecord, ReferenceStore } from './store.js';
import { type ReceivedFile, receiveMultipartUpload, receiveRawUpload } from './upload-receiver.js';
import { noteRequestBody } from './witness.js';

export const BASE_PATH = '/v2/';
/** The first path segments under the base that name a resource (oauth is answered before these). */
const KNOWN_RESOURCES = new Set(['orders', 'checkout', 'files']);
const SMALL_BODY_LIMIT = 1024 * 1024;

export interface ResourceContext {
  dialect: Dialect;
  store: ReferenceStore;
  faults: FaultPlan;
  /** Where received files are kept while the service runs. */
  uploadFolder: string;
  maxUpload: number;
  /** The fixed token and the client credentials POST oauth takes (`serve --token`, `--client-id`). */
  credentials: { token?: string | undefined; clientId?: string | undefined; clientSecret?: string | undefined };
  /** The base of the URLs handed out: known only once the service listens. */
  publicBase: () => string;
  /** Called after each order status change (webhooks). */
  statusChanged: (orderId: string) => void;
}

/** How a request under the base path is answered, given its path segments there. */
export type ResourceHandler = (request: IncomingMessage, responder: Responder, segments: string[]) => Promise<void>;

export function createResourceHandler(context: ResourceContext): ResourceHandler {
  const { dialect, store, faults, uploadFolder, maxUpload, credentials, publicBase, statusChanged } = context;
  const issuedTokens = new Set<string>();
  const authRequired = Boolean(credentials.token || credentials.clientId || faults.tokenLifetime);

  /** Set-up answers by checkout code and body, for variants behind a cache keyed by them. */
  const setUpCache = new Map<string, Record<string, unknown>>();

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
    const known = (credentials.token !== undefined && sameSecret(given, credentials.token)) || issuedTokens.has(given);
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
        ...(dialect.multipartTypeOf ? { typeOf: dialect.multipartTypeOf } : {}),
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
    const base = publicBase();
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
        credentials.clientId !== undefined &&
        (form.get('client_id') !== credentials.clientId ||
          !sameSecret(form.get('client_secret') ?? '', credentials.clientSecret ?? ''))
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
        const headers: Record<string, string> =
          dialect.setUpStatus === 201 ? { location: `${base}checkout/${code}` } : {};
        const cacheKey = `${code} ${sent.bytes.toString('base64')}`;
        const cached = dialect.cachesSetUpsByBody ? setUpCache.get(cacheKey) : undefined;
        if (cached) {
          responder.resource(dialect.setUpStatus, 'checkout', cached, headers);
          return;
        }
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
        const model = checkoutModel(record, base);
        if (dialect.cachesSetUpsByBody) setUpCache.set(cacheKey, model);
        responder.resource(dialect.setUpStatus, 'checkout', model, headers);
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
      if (store.uploads.get(code) !== slot) {
        // Its order was forgotten while the file came (the store keeps the newest orders only).
        rmSync(file.path, { force: true });
        throw new HttpError(404, 'unknown upload code', ['Use the upload URL given by the order.']);
      }
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
      if (kind && dialect.refuseFile?.(file.head)) {
        rmSync(file.path, { force: true });
        throw new HttpError(415, 'this service does not take the file', ['Send a PDF, PNG or JPEG.']);
      }
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

  return handle;
}
