import { once } from 'node:events';
import { createServer } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { ExchangeFeed } from '../../src/control/exchange-feed.js';
import { keptCopy } from '../../src/findings/kept-copy.js';
import type { Exchange } from '../../src/validate/exchange.js';

// What the proxy keeps past an exchange (the live page's window, the findings kept for reports)
// holds copies of its own, weighed as kept: a 64 KiB cut of a 4 MiB body must not keep 4 MiB.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const MiB = 1024 * 1024;

/** A checkout set-up of `size` bytes, each one a new string. */
function checkoutBody(size: number, index: number): string {
  const start = `{"returnUrl":"https://shop.example.test/back/${index}","note":"`;
  return `${start}${String.fromCharCode(97 + (index % 26)).repeat(size - start.length - 2)}"}`;
}

describe('what the proxy keeps of large bodies', () => {
  it('holds none of them once their exchanges are over: not in the live window, not in the findings', async () => {
    const target = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    }).listen(0, '127.0.0.1');
    await once(target, 'listening');
    const proxy = await startProxy({ target: `http://127.0.0.1:${(target.address() as { port: number }).port}/v2/` });
    try {
      const before = heapUsed();
      for (let index = 0; index < 12; index += 1) {
        const answer = await fetch(`${proxy.url}checkout/c${index}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: checkoutBody(4 * MiB, index),
        });
        await answer.text();
      }
      const grown = (heapUsed() - before) / MiB;
      // Twelve bodies of 4 MiB are 48 MiB; what the page shows of them (64 KiB each) and the
      // findings' summaries are a few MiB.
      expect(grown).toBeLessThan(16);
      expect(proxy.feed.last).toBe(12);
      expect(proxy.feed.item(12)?.exchange.request.body?.text).toHaveLength(64 * 1024);
    } finally {
      await proxy.close();
      target.close();
    }
  });
});

function exchangeWith(text: string): Exchange & { violations: [] } {
  return {
    request: { method: 'POST', url: 'http://x.test/v2/checkout/a', headers: {}, body: { text, size: text.length } },
    response: { status: 200, headers: {}, body: { text: '{}', size: 2 } },
    violations: [],
  };
}

describe('the live window', () => {
  it('is charged to the memory budget, keeps bodies without their text when it is spent, and gives back what it drops', () => {
    let used = 0;
    let limit = 10 * MiB;
    const budget = {
      take: (bytes: number) => {
        if (used + bytes > limit) return false;
        used += bytes;
        return true;
      },
      hold: (bytes: number) => {
        used += bytes;
      },
      give: (bytes: number) => {
        used -= bytes;
      },
    };
    const feed = new ExchangeFeed(3, 32 * MiB, budget);
    feed.push(exchangeWith('x'.repeat(100_000)), true, undefined);
    // The cut (64 Ki characters, a byte each in UTF-8) is what the window is charged.
    expect(used).toBeGreaterThan(64 * 1024);
    expect(used).toBeLessThan(80 * 1024);
    limit = used;
    feed.push(exchangeWith('y'.repeat(100_000)), true, undefined);
    const spent = feed.item(2)?.exchange.request.body;
    expect(spent?.text).toBeUndefined();
    expect(spent?.skipped).toMatch(/memory budget/);
    for (let more = 0; more < 5; more += 1) feed.push(exchangeWith('z'), true, undefined);
    const held = used;
    limit = Number.POSITIVE_INFINITY;
    for (let more = 0; more < 3; more += 1) feed.push(exchangeWith('w'), true, undefined);
    expect(used).toBeLessThanOrEqual(held);
    expect(used).toBeLessThan(16 * 1024);
  });

  it('holds no large string that a finding, an observation or an error quotes a part of', () => {
    const feed = new ExchangeFeed(1000, 1024 * MiB);
    const before = heapUsed();
    for (let index = 0; index < 12; index += 1) {
      const value = checkoutBody(4 * MiB, index);
      // A message quoting a value read from a body: a view of the whole value, as V8 makes it.
      const finding = {
        rule: 'checkout.request.schema' as const,
        severity: 'must' as const,
        side: 'request' as const,
        message: `returnUrl is too long: ${value.slice(10, 90)}`,
        path: value.slice(100, 140),
      };
      const exchange = exchangeWith('{}');
      feed.push(
        {
          ...exchange,
          violations: [finding],
          observations: [{ ...finding, severity: 'observe' }],
          error: value.slice(200, 260),
        },
        true,
        undefined,
      );
    }
    // Twelve values of 4 MiB are 48 MiB: one may still be held by the loop, none by the window.
    expect((heapUsed() - before) / MiB).toBeLessThan(12);
    const kept = feed.item(12)?.exchange as Exchange & { violations: { message: string; severity: string }[] };
    expect(kept.violations.map((finding) => finding.severity)).toEqual(['must', 'observe']);
    expect(kept.violations[0]?.message).toMatch(/^returnUrl is too long: /);
  });

  it('keeps copies equal to what they copy, weighed', () => {
    const shared = { rule: 'a.b', message: 'm'.repeat(40) };
    const value = { list: [shared, shared], text: 't'.repeat(1000), n: 1, none: null, nested: { deep: ['é\uD800'] } };
    const { copy, weight } = keptCopy(value);
    expect(copy).toEqual(value);
    expect(copy).not.toBe(value);
    expect(copy.list[0]).toBe(copy.list[1]);
    expect(weight).toBeGreaterThan(2000);
    expect(weight).toBeLessThan(3000);
  });
});
