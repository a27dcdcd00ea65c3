import { describe, expect, it } from 'vitest';
import type { Document } from '../../src/validate/document.js';
import { GivenUrls } from '../../src/validate/given-urls.js';
import { CheckoutState } from '../../src/validate/state.js';

// What traffic taught is bounded: a long proxy run keeps the newest order answers and set-ups, at
// most a fixed number, and what was learnt last (or again) is among what is kept.

const order = (n: number): Document =>
  ({
    format: 'json',
    value: {
      id: `order-${n}`,
      checkout: { setupUrl: `https://api.example.test/v2/checkout/Code${n}` },
      items: [{ files: { content: { uploadUrl: `https://api.example.test/v2/files/File${n}` } } }],
    },
  }) as Document;

describe('what traffic taught, bounded', () => {
  it('keeps the newest half of its capacity of given URLs, and forgets the oldest', () => {
    const given = new GivenUrls(1000);
    expect(given.empty).toBe(true);
    for (let n = 0; n < 5000; n += 1) given.learn(order(n));
    expect(given.empty).toBe(false);
    for (let n = 4800; n < 5000; n += 1) {
      expect(given.given(`/v2/checkout/Code${n}`)).toEqual({ operation: 'checkout', order: `order-${n}` });
      expect(given.byCode(`file${n}`)?.path).toBe(`/v2/files/File${n}`);
      expect(given.orderValue(`order-${n}`)).toEqual({ order: `order-${n}` });
    }
    expect(given.given('/v2/checkout/Code0')).toBeUndefined();
    expect(given.byCode('code0')).toBeUndefined();
    expect(given.orderValue('order-0')).toBeUndefined();
  });

  it('keeps an order learnt again as long as a new one', () => {
    const given = new GivenUrls(100);
    given.learn(order(0));
    for (let n = 1; n < 1000; n += 1) {
      given.learn(order(n));
      if (n % 20 === 0) given.learn(order(0));
    }
    expect(given.given('/v2/checkout/Code0')).toBeDefined();
  });

  it('keeps the newest set-ups, and one set up again as long as a new one', () => {
    const state = new CheckoutState(100);
    for (let n = 0; n < 1000; n += 1) {
      state.remember(`checkout/${n}`, { address: { city: String(n) } });
      if (n % 20 === 0) state.remember('checkout/first', { address: { city: 'first' } });
    }
    for (let n = 960; n < 1000; n += 1) expect(state.recall(`checkout/${n}`)).toEqual({ address: { city: String(n) } });
    expect(state.recall('checkout/0')).toBeUndefined();
    expect(state.recall('checkout/first')).toEqual({ address: { city: 'first' } });
    state.forget('checkout/999');
    expect(state.recall('checkout/999')).toBeUndefined();
  });
});
