import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';

// The reference service's memory: orders, their checkouts and their upload slots. Codes are opaque
// random strings, as the real service's are; clients only ever get them inside full URLs. Bounded:
// `serve` runs for days as a test double, so the oldest orders are forgotten (with their checkout,
// payments, upload slots and received files) once it holds more than it keeps.

/** Orders `serve` keeps by default: far more than a test run places, few enough to run for days. */
export const KEPT_ORDERS = 10_000;

/** Superseded payment ids kept per checkout (each set-up hands out a new one): told apart from made-up ones. */
const KEPT_PAYMENTS_PER_CHECKOUT = 16;

export interface Address {
  [field: string]: string;
}

export interface CheckoutRecord {
  code: string;
  orderId: string;
  amount: number;
  paymentId: string;
  status: string;
  returnUrl?: string;
  address: Address;
  setUp: boolean;
}

export interface UploadSlot {
  code: string;
  orderId: string;
  role: 'content' | 'cover';
  status: 'AwaitingUpload' | 'Uploaded';
  fileType?: string;
  size?: number;
  /** Where the received file is kept while the service runs. */
  path?: string;
  sha256?: string;
}

export interface OrderItem {
  productId: string;
  quantity: number;
  content: string;
  cover: string;
}

export interface OrderRecord {
  id: string;
  checkout: string;
  items: OrderItem[];
  amount: number;
  /** A status set through the control API (Shipped …), which a shop cannot cause itself. */
  status?: string;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Letters and digits only, like the real service's codes (a leading "-" would read as an option). */
export function opaqueCode(length = 21): string {
  return [...randomBytes(length)].map((byte) => ALPHABET[byte % ALPHABET.length]).join('');
}

export class ReferenceStore {
  readonly orders = new Map<string, OrderRecord>();
  readonly checkouts = new Map<string, CheckoutRecord>();
  readonly uploads = new Map<string, UploadSlot>();
  /** The payment ids handed out, to their checkout code: a superseded one is told apart from a made-up one. */
  readonly payments = new Map<string, string>();
  /** Each checkout's payment ids, oldest first, so that forgetting it forgets them. */
  private readonly paymentsOf = new Map<string, string[]>();
  /** Order ids, oldest first, from `oldest` on; a queue rather than the Map's own order, whose first key costs more to find with each one deleted before it. */
  private placed: string[] = [];
  private oldest = 0;

  constructor(private readonly keptOrders = KEPT_ORDERS) {}

  /** A fresh payment for a checkout (each set-up gets one); the one before it stops working. */
  renewPayment(checkout: CheckoutRecord): void {
    checkout.paymentId = opaqueCode(16);
    this.notePayment(checkout);
  }

  private notePayment(checkout: CheckoutRecord): void {
    this.payments.set(checkout.paymentId, checkout.code);
    const ids = this.paymentsOf.get(checkout.code) ?? [];
    ids.push(checkout.paymentId);
    if (ids.length > KEPT_PAYMENTS_PER_CHECKOUT) this.payments.delete(ids.shift() as string);
    this.paymentsOf.set(checkout.code, ids);
  }

  /** Forgets the oldest orders past the bound, and all that belongs to them. */
  private forgetOldest(): void {
    while (this.orders.size > this.keptOrders && this.oldest < this.placed.length) {
      const id = this.placed[this.oldest] as string;
      this.oldest += 1;
      const order = this.orders.get(id);
      if (!order) continue;
      this.orders.delete(id);
      this.checkouts.delete(order.checkout);
      for (const payment of this.paymentsOf.get(order.checkout) ?? []) this.payments.delete(payment);
      this.paymentsOf.delete(order.checkout);
      for (const item of order.items)
        for (const code of [item.content, item.cover]) {
          const path = this.uploads.get(code)?.path;
          if (path) rmSync(path, { force: true });
          this.uploads.delete(code);
        }
    }
    if (this.oldest > 1024 && this.oldest * 2 > this.placed.length) {
      this.placed = this.placed.slice(this.oldest);
      this.oldest = 0;
    }
  }

  placeOrder(items: { productId: string; quantity: number }[]): OrderRecord {
    const id = opaqueCode(10);
    const checkout: CheckoutRecord = {
      code: opaqueCode(),
      orderId: id,
      amount: 0,
      paymentId: opaqueCode(16),
      status: 'Open',
      address: {},
      setUp: false,
    };
    const order: OrderRecord = { id, checkout: checkout.code, items: [], amount: 0 };
    for (const item of items) {
      const content = opaqueCode();
      const cover = opaqueCode();
      this.uploads.set(content, { code: content, orderId: id, role: 'content', status: 'AwaitingUpload' });
      this.uploads.set(cover, { code: cover, orderId: id, role: 'cover', status: 'AwaitingUpload' });
      order.items.push({ ...item, content, cover });
      order.amount += 12.49 * item.quantity;
    }
    order.amount = Math.round((order.amount + 10) * 100) / 100;
    checkout.amount = order.amount;
    this.checkouts.set(checkout.code, checkout);
    this.notePayment(checkout);
    this.orders.set(id, order);
    this.placed.push(id);
    this.forgetOldest();
    return order;
  }
}
