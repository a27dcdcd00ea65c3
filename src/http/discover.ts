import { UsageError } from '../findings/usage-error.js';
import { redactText } from '../redaction/index.js';
import type { Exchange } from '../validate/exchange.js';
import { BASE_URL_HINT, saysNothingHere } from './base-url-hint.js';
import { send } from './send.js';

// The checkout and upload URLs are opaque: the suite uses them exactly as the order endpoints give
// them, from --checkout-url/--upload-url, from GET orders/{id}, or from an order it places.

export interface DiscoveredUrls {
  checkoutUrl: string;
  uploadUrls: { content?: string; cover?: string };
  exchanges: Exchange[];
}

export interface DiscoveryOptions {
  baseUrl: string;
  headers: Record<string, string>;
  checkoutUrl?: string;
  uploadUrl?: string;
  orderId?: string;
  orderBody?: string;
  readOnly: boolean;
  secrets: string[];
  timeoutMs: number;
}

export const DEFAULT_ORDER = {
  items: [{ productId: 'boek-hc-a5-sts', quantity: 1, pageCount: 32 }],
  shipping: {
    address: { name: 'Print API', line1: 'Osloweg 75', postCode: '9700 GE', city: 'Groningen', country: 'NL' },
  },
};

interface OrderShape {
  checkout?: { setupUrl?: unknown };
  items?: { files?: { content?: { uploadUrl?: unknown }; cover?: { uploadUrl?: unknown } } }[];
}

function urlsOfOrder(order: OrderShape) {
  const checkoutUrl = typeof order.checkout?.setupUrl === 'string' ? order.checkout.setupUrl : undefined;
  const uploadUrls: DiscoveredUrls['uploadUrls'] = {};
  for (const item of order.items ?? []) {
    const content = item.files?.content?.uploadUrl;
    const cover = item.files?.cover?.uploadUrl;
    if (typeof content === 'string' && !uploadUrls.content) uploadUrls.content = content;
    if (typeof cover === 'string' && !uploadUrls.cover) uploadUrls.cover = cover;
  }
  return { checkoutUrl, uploadUrls };
}

/** What a refused orders request most likely means, and what to change. */
function whatToDo(status: number, options: DiscoveryOptions): string {
  if (status === 401 || status === 403) return 'check the credentials (--token, --client-id/--client-secret, --header)';
  if (saysNothingHere(status))
    return options.orderId ? `no order ${options.orderId} there, or ${BASE_URL_HINT}` : BASE_URL_HINT;
  if (status >= 500) return 'the service failed; try again, or give --checkout-url and --upload-url';
  return options.orderId
    ? 'give --checkout-url and --upload-url'
    : 'the order was refused: fix it with --order-body FILE, or give --checkout-url and --upload-url';
}

export async function discoverUrls(options: DiscoveryOptions): Promise<DiscoveredUrls> {
  const exchanges: Exchange[] = [];
  const given = {
    checkoutUrl: options.checkoutUrl,
    uploadUrls: options.uploadUrl ? { content: options.uploadUrl } : {},
  };
  if (options.checkoutUrl && (options.uploadUrl || options.readOnly)) {
    return { checkoutUrl: options.checkoutUrl, uploadUrls: given.uploadUrls, exchanges };
  }
  const scrub = (text: string) => redactText(text, options.secrets);
  const ordersUrl = new URL(
    options.orderId ? `orders/${encodeURIComponent(options.orderId)}` : 'orders',
    options.baseUrl,
  ).href;
  if (!options.orderId && options.readOnly) {
    throw new UsageError('--read-only places no order: give --checkout-url or --order-id');
  }
  const exchange = await send(
    options.orderId
      ? { method: 'GET', url: ordersUrl, headers: { ...options.headers, accept: 'application/json' } }
      : {
          method: 'POST',
          url: ordersUrl,
          headers: { ...options.headers, accept: 'application/json', 'content-type': 'application/json' },
          body: options.orderBody ?? JSON.stringify(DEFAULT_ORDER),
        },
    undefined,
    options.timeoutMs,
  );
  exchanges.push(exchange);
  const what = `${exchange.request.method} ${scrub(ordersUrl)}`;
  if (!exchange.response)
    throw new UsageError(
      `cannot reach the service: ${what} failed (${scrub(exchange.error ?? 'no answer')}); check --base-url`,
    );
  const { status } = exchange.response;
  const text = exchange.response.body?.text ?? '';
  if (status < 200 || status > 299) {
    const detail = scrub(text.replace(/\s+/g, ' ').slice(0, 200));
    throw new UsageError(`${what} answered ${status}${detail ? ` (${detail})` : ''}: ${whatToDo(status, options)}`);
  }
  let order: OrderShape;
  try {
    order = JSON.parse(text) as OrderShape;
  } catch {
    throw new UsageError(`${what} did not answer JSON; give --checkout-url and --upload-url`);
  }
  const found = urlsOfOrder(order);
  const checkoutUrl = given.checkoutUrl ?? found.checkoutUrl;
  if (!checkoutUrl)
    throw new UsageError(
      `the order from ${what} has no checkout.setupUrl (is the payment screen enabled for the account?); give --checkout-url`,
    );
  const uploadUrls = options.uploadUrl ? given.uploadUrls : found.uploadUrls;
  return { checkoutUrl, uploadUrls, exchanges };
}

/**
 * A second order's checkout, when the suite places its orders (no URL, no order id given): two
 * checkouts set up with different values must each read back their own. Never a reason to stop:
 * a second order refused or unreadable only leaves that probe out.
 */
export async function secondCheckout(
  options: DiscoveryOptions,
): Promise<{ checkoutUrl?: string; exchanges: Exchange[] }> {
  if (options.checkoutUrl || options.orderId || options.readOnly) return { exchanges: [] };
  try {
    const found = await discoverUrls(options);
    return { checkoutUrl: found.checkoutUrl, exchanges: found.exchanges };
  } catch {
    return { exchanges: [] };
  }
}
