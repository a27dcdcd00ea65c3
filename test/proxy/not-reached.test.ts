import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { proxiedService, setUpWithShortReturnUrl } from '../helpers/proxy-fixture.js';
import { openConnection, rawExchange, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// What the proxy answered itself never reached the target: it is counted apart, by reason, and a
// session in which nothing reached the target is a run that could not be made, never a pass.

const ANSWER = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

/** A loopback URL on which nothing listens. */
async function deadTarget(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return `http://127.0.0.1:${port}/v2/`;
}

describe('exchanges that never reached the target', () => {
  it('are counted by reason: the target unreachable, a refused path or Host, a late head, too many connections', async () => {
    const target = await deadTarget();
    // Room for connections the proxy has not yet seen close (a loaded machine is slow to tell it).
    const proxy = await startProxy({ target, headersTimeoutMs: 50, maxConnections: 4 });
    try {
      for (let index = 0; index < 2; index += 1)
        expect(await rawExchange(proxy.url, 'GET /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatch(
          /^HTTP\/1\.1 502 /,
        );
      expect(await rawExchange(proxy.url, 'GET //elsewhere/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatch(
        /^HTTP\/1\.1 400 /,
      );
      expect(await rawExchange(proxy.url, 'GET /v2/x HTTP/1.1\r\nHost: evil.test\r\n\r\n')).toMatch(/^HTTP\/1\.1 403 /);
      expect(await rawExchange(proxy.url, 'GET /v2/x HTTP/1.1\r\nHost: 127.0.0.1\r\n')).toMatch(/^HTTP\/1\.1 408 /);
      const held = await Promise.all([1, 2, 3, 4].map(() => openConnection(proxy.url)));
      expect(await rawExchange(proxy.url, 'GET /v2/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 503 /);
      for (const connection of held) connection.socket.destroy();
      expect(proxy.traffic.reached).toBe(0);
      expect(proxy.traffic.seen).toBe(6);
      expect(proxy.traffic.notReachedLines()).toEqual([
        `2× 502 the target ${target} cannot be reached (ECONNREFUSED)`,
        '1× 400 only paths of the target are forwarded',
        '1× 403 Host "evil.test" is not a name of this proxy; allow it with --allowed-host',
        '1× 408 the request head was not complete within 0.05 s',
        '1× 503 too many connections; try again later',
      ]);
      // The requests that got as far as being judged are judged on their side.
      expect(proxy.traffic.tally.data.exchanges).toBe(2);
      expect(proxy.traffic.tally.data.answers['GET checkout']).toEqual({ 'no answer': 2 });
    } finally {
      await proxy.close();
    }
  });

  it('are told apart from those that reached it, and the verdicts rest on the latter', async () => {
    const target = scriptedTarget([ANSWER]);
    await throughProxyTo(target.server, async (proxy) => {
      const request = 'GET /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';
      expect(await rawExchange(proxy.url, request)).toMatch(/^HTTP\/1\.1 200 /);
      expect(await rawExchange(proxy.url, 'GET /../x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
      expect(proxy.traffic.reached).toBe(1);
      // The exchange that reached the target was judged, once, into the tally.
      expect([proxy.traffic.tally.data.exchanges, proxy.traffic.unjudged]).toEqual([1, 0]);
      expect(proxy.traffic.tally.data.answers['GET checkout']).toEqual({ '200 JSON': 1 });
      expect(proxy.traffic.notReachedLines()).toEqual(['1× 400 only paths of the target are forwarded']);
      expect(proxy.traffic.progress()).toMatch(
        /^so far: 2 exchanges, 1 answered by the target, 1 by the proxy itself; broken: /,
      );
    });
  });
});

describe('a target that takes the request and breaks off', () => {
  it('is told as such, never as one that cannot be reached, and a client that had nothing gets a 502', async () => {
    const target = scriptedTarget([
      // The request taken, then the connection reset: no byte of answer.
      (socket) => socket.resetAndDestroy(),
      // A JSON answer (held by the proxy to be judged) broken off in its body.
      (socket) => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":');
        setTimeout(() => socket.resetAndDestroy(), 20);
      },
    ]);
    await throughProxyTo(target.server, async (proxy) => {
      const get = 'GET /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';
      const dropped = await rawExchange(proxy.url, get);
      expect(dropped).toMatch(/^HTTP\/1\.1 502 /);
      expect(dropped).toContain('took the request and closed the connection without answering (ECONNRESET)');
      expect(await rawExchange(proxy.url, get)).toMatch(/^HTTP\/1\.1 502 [\s\S]*the target broke off the answer/);
      expect(proxy.traffic.notReachedLines().join('\n')).not.toContain('cannot be reached');
    });
  });
});

describe('requests blocked in enforce mode', () => {
  it('are judged from the request the proxy read, and counted as blocked', async () => {
    const setup = await proxiedService({ proxy: { mode: 'enforce' } });
    try {
      const blocked = await setUpWithShortReturnUrl(setup.proxy.url);
      expect(blocked.status).toBe(400);
      await blocked.text();
      const { traffic } = setup.proxy;
      expect([traffic.seen, traffic.reached, traffic.blocked]).toEqual([2, 1, 1]);
      expect(traffic.tally.data.broken['checkout.return-url.length']).toEqual({ json: 1 });
      expect(traffic.tally.data.findings.map((f) => `${f.rule}@${f.side}`)).toEqual([
        'checkout.return-url.length@request',
      ]);
    } finally {
      await setup.dispose();
    }
  });
});

describe('print-conformance proxy when nothing reached the target', () => {
  it('ends as a run that could not be made: exit 2, one line saying so', async () => {
    const target = await deadTarget();
    const proxy = await startListeningCli(['proxy', '--target', target, '--summary-interval', '0']);
    const answer = await fetch(`${proxy.url}orders`, { method: 'POST' });
    expect(answer.status).toBe(502);
    await answer.text();
    const { code, stderr, stdout } = await proxy.stop();
    expect(code).toBe(2);
    expect(stdout).not.toMatch(/VERDICT|passed/);
    expect(stdout).toMatch(
      /\nAnswered by the proxy itself \(no answer came from the target\):\n {2}1× 502 the target \S+ cannot be reached \(ECONNREFUSED\)\nproxy summary: 1 exchange, 0 answered by the target, 1 by the proxy itself\n/,
    );
    // The one line that says why is on stderr, and is its last.
    const last = stderr.trimEnd().split('\n').at(-1);
    expect(last).toBe(
      `print-conformance: no request was answered by the target ${target} (1× 502 the target ${target} cannot be reached (ECONNREFUSED)); check --target and that the service is up (the run could not be made)`,
    );
  });

  it('ends so too when no request came at all', async () => {
    const target = await deadTarget();
    const result = await runCli(['proxy', '--target', target, '--', process.execPath, '-e', '']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /\nprint-conformance: no request came through the proxy at http:\S+; point the client at it/,
    );
  });
});
