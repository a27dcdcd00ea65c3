import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { ROOT, runCli, startListeningCli } from '../helpers/cli.js';

// The proxy reads HTTP with the parser node exposes through its legacy _http_common module
// (deprecated in the docs, DEP0199). The day a Node.js drops it, the proxy says so in one line
// at start; until then, running it emits no deprecation warning.

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(async () => {
  await service.close();
});

describe('print-conformance proxy and the Node.js it runs on', () => {
  it('says in one line, exit 2, that a Node.js without _http_common cannot run it', async () => {
    const hide = join(ROOT, 'test', 'helpers', 'hide-http-common.cjs');
    const result = await runCli(['proxy', '--target', service.baseUrl], {
      env: { NODE_OPTIONS: `--require ${hide}` },
      timeoutMs: 20_000,
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `print-conformance: this Node.js (${process.version}) does not expose its HTTP parser; the proxy needs it\n`,
    );
  });

  it('runs, forwards and stops with deprecations made errors, and warns of none', async () => {
    // One order placed and its checkout read: what it shows is whether the service answered without a server error.
    const only = ['--only', 'http.no-server-error'];
    const proxy = await startListeningCli(['proxy', '--target', service.baseUrl, ...only, '--summary-interval', '0'], {
      env: { NODE_OPTIONS: '--throw-deprecation --pending-deprecation' },
    });
    const answer = await fetch(`${proxy.url}orders`, { method: 'POST' });
    expect(answer.status).toBe(201);
    const order = (await answer.json()) as { checkout: { setupUrl: string } };
    // The order's checkout read once: an exchange of the interface, which the verdict needs.
    const read = await fetch(order.checkout.setupUrl, { headers: { accept: 'application/json' } });
    await read.text();
    const { code, stderr, stdout } = await proxy.stop();
    expect(stderr).not.toMatch(/Deprecation/i);
    expect(stdout).toMatch(/proxy summary: 2 exchanges?, 2 answered by the target/);
    expect(code).toBe(0);
  });
});

describe('print-conformance proxy limits', () => {
  it('says in one line, exit 2, what is wrong with a limit', async () => {
    for (const [option, value, message] of [
      ['--headers-timeout', '-1', '--headers-timeout needs a number of at least 0'],
      ['--target-timeout', '0', '--target-timeout needs a number of at least 0.001'],
      ['--max-connections', '0', '--max-connections needs a number of at least 1'],
      ['--max-connections', '1.5', '--max-connections needs a whole number'],
      ['--memory-budget', 'lots', '--memory-budget lots is not a size (e.g. 2GiB, 500MiB, 1048576)'],
    ] as const) {
      const result = await runCli(['proxy', '--target', service.baseUrl, option, value]);
      expect(result.code, option).toBe(2);
      expect(result.stderr, option).toBe(`print-conformance: ${message}\n`);
    }
  });

  it('turns away a connection past --max-connections with 503', async () => {
    const proxy = await startListeningCli([
      'proxy',
      '--target',
      service.baseUrl,
      '--max-connections',
      '1',
      '--summary-interval',
      '0',
    ]);
    try {
      const { openConnection, rawExchange } = await import('../helpers/raw-http.js');
      const held = await openConnection(proxy.url);
      const turnedAway = await rawExchange(proxy.url, 'GET /orders HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      expect(turnedAway).toMatch(/^HTTP\/1\.1 503 /);
      held.socket.destroy();
    } finally {
      await proxy.stop();
    }
  });
});
