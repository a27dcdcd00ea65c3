import QuickLRU from 'quick-lru';

// What a POST checkout set, keyed by the checkout's path, for checkout.get.consistent. Kept small
// and bounded: a long proxy run sees many codes, and only the latest ones matter.

export interface CheckoutSetUp {
  returnUrl?: string;
  address: Record<string, string>;
}

export class CheckoutState {
  /**
   * At least the newest `capacity / 2` set-ups, at most `capacity`: evicting the oldest entry of
   * one Map costs time that grows with what was evicted before it (V8 skips the deleted slots).
   */
  private readonly byKey: QuickLRU<string, CheckoutSetUp>;

  constructor(capacity = 10_000) {
    this.byKey = new QuickLRU({ maxSize: Math.max(1, Math.floor(capacity / 2)) });
  }

  remember(key: string, setUp: CheckoutSetUp): void {
    // Set anew, it is the newest: a set-up sent again is kept as long as a new one.
    this.byKey.delete(key);
    this.byKey.set(key, setUp);
  }

  /** A set-up the service took but whose values are not known (its body could not be read). */
  forget(key: string): void {
    this.byKey.delete(key);
  }

  recall(key: string): CheckoutSetUp | undefined {
    return this.byKey.get(key);
  }
}
