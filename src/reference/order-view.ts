import { HttpError } from './http-error.js';
import type { OrderRecord, ReferenceStore } from './store.js';

// An order as POST orders and GET orders/{id} answer it: the checkout's set-up URL and each
// item's upload URLs, fully qualified on the service's base, as the real service hands them out.

/**
 * An order's status as the real service moves it: `Processing` once its payment succeeded and every
 * file is uploaded, `Cancelled` with a cancelled payment, else `Created`; a status set through the
 * control API (Shipped …) stands over these.
 */
export function orderStatus(store: ReferenceStore, order: OrderRecord): string {
  if (order.status !== undefined) return order.status;
  const payment = store.checkouts.get(order.checkout)?.status;
  if (payment === 'Cancelled') return 'Cancelled';
  const uploaded = order.items.every(
    (item) =>
      store.uploads.get(item.content)?.status === 'Uploaded' && store.uploads.get(item.cover)?.status === 'Uploaded',
  );
  return payment === 'Successful' && uploaded ? 'Processing' : 'Created';
}

export function orderView(store: ReferenceStore, id: string, base: string) {
  const order = store.orders.get(id);
  if (!order) throw new HttpError(404, `no order ${id}`);
  const file = (code: string) => {
    const slot = store.uploads.get(code);
    return slot?.status === 'Uploaded'
      ? { status: 'Uploaded' }
      : { status: 'AwaitingUpload', uploadUrl: `${base}files/${code}` };
  };
  return {
    id: order.id,
    status: orderStatus(store, order),
    checkout: {
      setupUrl: `${base}checkout/${order.checkout}`,
      status: store.checkouts.get(order.checkout)?.status ?? 'Open',
    },
    items: order.items.map((item) => ({
      productId: item.productId,
      quantity: item.quantity,
      files: { content: file(item.content), cover: file(item.cover) },
    })),
  };
}
