import { describe, expect, it } from 'vitest';
import { judgeTraffic, TrafficState } from '../../src/validate/traffic.js';

// A base given with a path of its own (the proxy's target, validate --base-url) is the service's
// base: traffic cannot move it. A JSON call deeper under it, whose path holds a resource's name,
// once taught a base under it, and every exchange of the interface after it went unjudged: a run
// with nothing tested that exited 0.

const json = { 'content-type': 'application/json' };

function exchange(method: string, url: string) {
  return {
    request: { method, url, headers: { accept: 'application/json' } },
    response: { status: 200, headers: json, body: { text: '{"fileName":"logo"}', size: 19 } },
  };
}

describe('a base given with a path', () => {
  it('stays the base, whatever call comes first', () => {
    const state = new TrafficState('https://shop.test/v2/');
    expect(judgeTraffic(exchange('GET', 'https://shop.test/v2/shop/files/logo'), state).scope.kind).toBe('outside');
    expect(judgeTraffic(exchange('GET', 'https://shop.test/v2/checkout/abc'), state).scope).toMatchObject({
      kind: 'interface',
      operation: 'checkout',
    });
    expect(state.base.known).toBe('https://shop.test/v2/');
  });

  it('given as an origin alone, is still learnt from the traffic', () => {
    const state = new TrafficState('https://shop.test/');
    expect(judgeTraffic(exchange('GET', 'https://shop.test/v2/checkout/abc'), state).scope.kind).toBe('interface');
    expect(state.base.known).toBe('https://shop.test/v2/');
  });
});
