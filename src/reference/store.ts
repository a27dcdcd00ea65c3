import { randomBytes } from 'node:crypto';

// The reference service's memory: orders, their checkouts and their upload slots. Codes are opaque
// random strings, as the real service's are; clients only ever get them inside full URLs.

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
  /** Every payment id ever handed out, to its checkout code: a superseded one is told apart from a made-up one. */
  readonly payments = new Map<string, string>();

  /** A fresh payment for a checkout (each set-up gets one); the one before it stops working. */
  renewPayment(checkout: CheckoutRecord): void {
    checkout.paymentId = opaqueCode(16);
    this.payments.set(checkout.paymentId, checkout.code);
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
    this.payments.set(checkout.paymentId, checkout.code);
    this.orders.set(id, order);
    return order;
  }
}
