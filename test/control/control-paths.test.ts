import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ControlPlane } from '../../src/control/control-plane.js';
import { ExchangeFeed } from '../../src/control/exchange-feed.js';
import { TestVerdicts } from '../../src/control/test-verdicts.js';
import { startReferenceService } from '../../src/reference/service.js';
import { startListeningCli } from '../helpers/cli.js';
import { proxiedService } from '../helpers/proxy-fixture.js';
import { rawExchange } from '../helpers/raw-http.js';

// Control paths decode what a client sends defensively: a path that is no percent-encoded UTF-8
// is a 400, and nothing a request holds can throw out of the control API, where it would reset
// the proxy's connection or, inside serve's promise, stop the service every client test uses.

const UNDECODABLE = [
  'api/tests/%E0%A4%A',
  'api/tests/%',
  'api/tests/%C0%80',
  'api/payments/%FF',
  'api/payments/%E0%A4%A',
];

function plane(): ControlPlane {
  return new ControlPlane({
    feed: new ExchangeFeed(),
    tests: new TestVerdicts(),
    title: 'test',
    pay: () => ({ status: 200, headers: {}, body: '{}' }),
  });
}

describe('the control API', () => {
  it.each(UNDECODABLE)('answers %s with a 400 that says why', (target) => {
    const method = target.startsWith('api/payments/') ? 'POST' : 'GET';
    const answer = plane().handle({ method, target, headers: {}, body: '{"outcome":"Successful"}', local: true });
    expect('status' in answer && answer.status).toBe(400);
    expect('body' in answer && answer.body).toMatch(/not percent-encoded UTF-8/);
  });

  it('refuses a test name holding a control character, which reports and the page would carry', () => {
    for (const name of ['a\u0000b', 'esc\u001b[31m', 'line\nbreak']) {
      const answer = plane().handle({
        method: 'POST',
        target: 'api/tests',
        headers: {},
        body: JSON.stringify({ name }),
        local: true,
      });
      expect('status' in answer && answer.status).toBe(400);
      expect('body' in answer && answer.body).toMatch(/no control characters/);
    }
    const named = plane().handle({
      method: 'POST',
      target: 'api/tests',
      headers: {},
      body: '{"name":"Café test"}',
      local: true,
    });
    expect('status' in named && named.status).toBe(200);
  });

  it('never throws, whatever the request target, method, headers and body', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        'api/',
        'tests/',
        'payments/',
        'exchanges/',
        'events',
        '%',
        '%E0',
        '%A4',
        '%2F',
        '/',
        '?',
        '#',
        '..',
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join('')),
        fc.constantFrom('GET', 'HEAD', 'POST', 'PUT'),
        fc.dictionary(fc.constantFrom('last-event-id', 'origin', 'sec-fetch-site', 'authorization'), fc.string()),
        fc.string(),
        (target, method, headers, body) => {
          const answer = plane().handle({ method, target, headers, body, local: true });
          if ('status' in answer) expect(answer.status).toBeLessThan(500);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('an undecodable control path over the wire', () => {
  it('is a 400 on the proxy, not a reset connection', async () => {
    const setup = await proxiedService();
    try {
      const answer = await rawExchange(
        setup.proxy.url,
        'GET /__print-conformance/api/tests/%E0%A4%A HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n',
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400 [\s\S]*not percent-encoded UTF-8/);
    } finally {
      await setup.dispose();
    }
  });

  it('is a 400 on serve, which goes on serving', async () => {
    const serve = await startListeningCli(['serve', '--port', '0']);
    try {
      const origin = new URL(serve.url).origin;
      const answer = await rawExchange(
        origin,
        'GET /__print-conformance/api/tests/%E0%A4%A HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n',
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400 [\s\S]*not percent-encoded UTF-8/);
      expect((await fetch(`${serve.url}orders/x`)).status).toBe(404);
      expect(serve.child.exitCode).toBeNull();
    } finally {
      const stopped = await serve.stop();
      expect(stopped.stderr).not.toMatch(/URIError|Unhandled/);
    }
  });
});

/** Request targets no client should send, each of which once threw out of a request handler. */
const ODD_TARGETS = [
  '//',
  '//x:99999/',
  'http://[/',
  '/__print-conformance//',
  '/__print-conformance/api/tests/%',
  '/__print-conformance/api/payments/%E0%A4%A',
  '/v2/checkout/%E0%A4%A',
  '/v2/payments/%E0%A4%A/start',
];

describe('odd request targets', () => {
  it.each(['serve', 'the proxy'])('are each answered by %s with a status, never a crash or a reset', async (face) => {
    const setup = face === 'the proxy' ? await proxiedService() : undefined;
    const service = setup ? undefined : await startReferenceService({ control: {} });
    try {
      const origin = new URL(setup?.proxy.url ?? service?.baseUrl ?? '').origin;
      for (const target of ODD_TARGETS) {
        const method = target.includes('payments/%E0') && target.startsWith('/__') ? 'POST' : 'GET';
        const answer = await rawExchange(
          origin,
          `${method} ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
        );
        expect(answer, target).toMatch(/^HTTP\/1\.1 [234]\d\d /);
      }
    } finally {
      await setup?.dispose();
      await service?.close();
    }
  });
});
