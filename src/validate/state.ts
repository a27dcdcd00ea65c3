// What a POST checkout set, keyed by the checkout's path, for checkout.get.consistent. Kept small
// and bounded: a long proxy run sees many codes, and only the latest ones matter.

export interface CheckoutSetUp {
  returnUrl?: string;
  address: Record<string, string>;
}

export class CheckoutState {
  private readonly byKey = new Map<string, CheckoutSetUp>();

  constructor(private readonly capacity = 10_000) {}

  remember(key: string, setUp: CheckoutSetUp): void {
    this.byKey.delete(key);
    this.byKey.set(key, setUp);
    if (this.byKey.size > this.capacity) {
      const oldest = this.byKey.keys().next().value;
      if (oldest !== undefined) this.byKey.delete(oldest);
    }
  }

  /** A set-up the service took but whose values are not known (its body could not be read). */
  forget(key: string): void {
    this.byKey.delete(key);
  }

  recall(key: string): CheckoutSetUp | undefined {
    return this.byKey.get(key);
  }
}
