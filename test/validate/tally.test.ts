import { describe, expect, it } from 'vitest';
import { noFacts } from '../../src/contract/exchange-facts.js';
import type { Exchange, Violation } from '../../src/validate/exchange.js';
import type { Tested } from '../../src/validate/index.js';
import { Tally } from '../../src/validate/tally.js';

// An exchange counts once per rule and format, as evidence and as a breach, however many of its
// sides or members name that rule; each exchange counts anew.

const exchange: Exchange = { request: { method: 'POST', url: 'http://s.test/v2/checkout/c', headers: {} } };

describe('the tally', () => {
  it('counts an exchange once per rule and format, and every exchange', () => {
    const tally = new Tally({ summarise: () => ({ method: 'POST', url: exchange.request.url, requestHeaders: {} }) });
    const facts = { ...noFacts('POST checkout'), requestDocument: 'json' as const, responseDocument: 'xml' as const };
    const tested: Tested[] = [
      { rule: 'checkout.echo', side: 'request', format: 'json' },
      { rule: 'checkout.echo', side: 'response', format: 'json' },
      { rule: 'checkout.echo', side: 'response', format: 'xml' },
      { rule: 'format.well-formed', side: 'request', format: 'json' },
    ];
    const violations: Violation[] = [
      { rule: 'checkout.echo', severity: 'must', side: 'response', message: 'one member', path: '/a' },
      { rule: 'checkout.echo', severity: 'must', side: 'response', message: 'another member', path: '/b' },
      { rule: 'format.well-formed', severity: 'must', side: 'request', message: 'broken' },
    ];
    for (let index = 0; index < 3; index += 1) tally.record(exchange, { violations, tested, facts });
    expect(tally.data.exchanges).toBe(3);
    expect(tally.data.evidence['checkout.echo']).toEqual({ json: 3, xml: 3 });
    expect(tally.data.evidence['format.well-formed']).toEqual({ json: 3 });
    expect(tally.data.broken['checkout.echo']).toEqual({ xml: 3 });
    expect(tally.data.broken['format.well-formed']).toEqual({ json: 3 });
    expect(tally.data.findings).toHaveLength(9);
  });

  it('tells an answer whose body was not recorded from one that had none, in the answers it counts', () => {
    const tally = new Tally({ summarise: () => ({ method: 'GET', url: exchange.request.url, requestHeaders: {} }) });
    const judged = (facts: Partial<ReturnType<typeof noFacts>>) => ({
      violations: [],
      tested: [],
      facts: { ...noFacts('GET checkout'), status: 200, ...facts },
    });
    tally.record(exchange, judged({ responseEmpty: true }));
    tally.record(exchange, judged({ responseText: true }));
    // A HAR saved without content: a body was there, and nothing of it can be judged.
    tally.record(exchange, judged({}));
    tally.record(exchange, judged({ responseDocument: 'json' }));
    expect(tally.data.answers['GET checkout']).toEqual({
      '200': 2,
      '200 with its body not recorded': 1,
      '200 JSON': 1,
    });
  });

  it('counts evidence and time read at any moment, over many kinds of exchange alike', () => {
    const tally = new Tally({ summarise: () => ({ method: 'POST', url: exchange.request.url, requestHeaders: {} }) });
    const facts = noFacts('POST checkout');
    // More kinds of exchange than the tally holds uncounted, each its own list, and one list shared.
    const kinds: Tested[][] = Array.from({ length: 300 }, (_, index) => [
      { rule: 'checkout.echo', side: 'response', format: index % 2 === 0 ? 'json' : 'xml' },
    ]);
    const shared: Tested[] = [{ rule: 'format.well-formed', side: 'request', format: 'json' }];
    for (const tested of kinds) tally.record({ ...exchange, durationMs: 2 }, { violations: [], tested, facts });
    expect(tally.data.evidence['checkout.echo']).toEqual({ json: 150, xml: 150 });
    expect(tally.data.time?.['checkout.echo']).toBe(600);
    for (let index = 0; index < 5; index += 1) {
      tally.record({ ...exchange, durationMs: 3 }, { violations: [], tested: shared, facts });
      // Read between exchanges: what was counted is not counted again.
      expect(tally.data.evidence['format.well-formed']).toEqual({ json: index + 1 });
    }
    tally.record(exchange, { violations: [], tested: shared, facts });
    expect(tally.data.evidence['format.well-formed']).toEqual({ json: 6 });
    expect(tally.data.time?.['format.well-formed']).toBe(15);
    expect(tally.data.evidence['checkout.echo']).toEqual({ json: 150, xml: 150 });
    expect(tally.data.exchanges).toBe(306);
  });
});
