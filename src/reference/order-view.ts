import { HttpError } from './http-error.js';
import type { ReferenceStore } from './store.js';

// An order as POST orders and GET orders/{id} answer it: the checkout's set-up URL and each
// item's upload URLs, fully qualified on the service's base, as the real service hands them out.

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
    status: 'Created',
    checkout: { setupUrl: `${base}checkout/${order.checkout}` },
    items: order.items.map((item) => ({
      productId: item.productId,
      quantity: item.quantity,
      files: { content: file(item.content), cover: file(item.cover) },
    })),
  };
}
