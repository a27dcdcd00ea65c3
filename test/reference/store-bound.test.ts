import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEPT_ORDERS, ReferenceStore } from '../../src/reference/store.js';

// `serve` runs for days as a test double: its store keeps the newest orders only, and forgetting
// an order forgets all that belongs to it, the received files on disk included.

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('the reference store', () => {
  it('keeps the newest orders only, forgetting the checkout, payments, upload slots and files of the oldest', () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-store-'));
    folders.push(folder);
    const store = new ReferenceStore(3);
    const placed = Array.from({ length: 3 }, () => store.placeOrder([{ productId: 'p', quantity: 1 }]));
    const first = placed[0];
    if (!first) throw new Error('no order');
    // The first order's content was received before it was forgotten.
    const file = join(folder, 'content.pdf');
    writeFileSync(file, '%PDF-1.7');
    const content = store.uploads.get(first.items[0]?.content ?? '');
    if (content) content.path = file;
    const firstPayment = store.checkouts.get(first.checkout)?.paymentId ?? '';
    for (let more = 0; more < 5; more += 1) store.placeOrder([{ productId: 'p', quantity: 1 }]);

    expect(store.orders.size).toBe(3);
    expect(store.checkouts.size).toBe(3);
    expect(store.uploads.size).toBe(6);
    expect(store.payments.size).toBe(3);
    expect(store.orders.has(first.id)).toBe(false);
    expect(store.checkouts.has(first.checkout)).toBe(false);
    expect(store.payments.has(firstPayment)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });

  it('keeps a bounded number of superseded payments per checkout', () => {
    const store = new ReferenceStore(2);
    const order = store.placeOrder([{ productId: 'p', quantity: 1 }]);
    const checkout = store.checkouts.get(order.checkout);
    if (!checkout) throw new Error('no checkout');
    const first = checkout.paymentId;
    for (let setUp = 0; setUp < 100; setUp += 1) store.renewPayment(checkout);
    expect(store.payments.size).toBeLessThanOrEqual(16);
    expect(store.payments.has(first)).toBe(false);
    expect(store.payments.get(checkout.paymentId)).toBe(checkout.code);
  });

  it('keeps ten thousand orders by default, many more than a test run places', () => {
    expect(KEPT_ORDERS).toBe(10_000);
    const store = new ReferenceStore();
    for (let n = 0; n < KEPT_ORDERS + 500; n += 1) store.placeOrder([{ productId: 'p', quantity: 1 }]);
    expect(store.orders.size).toBe(KEPT_ORDERS);
  });
});
