import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../../src/http/send.js';
import { runCli } from '../helpers/cli.js';

// --timeout bounds a whole answer, not each wait within it: a service that trickles its answer a
// byte at a time cannot hold a run or a replay past it.

let server: Server;
let base = '';
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{');
    const timer = setInterval(() => response.write(' '), 100);
    timers.add(timer);
    response.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/`;
});

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('an answer that trickles', () => {
  it('is cut at the timeout, with a reason', async () => {
    const started = Date.now();
    const exchange = await send({ method: 'GET', url: `${base}checkout/x`, headers: {} }, undefined, 800);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(exchange.response).toBeUndefined();
    expect(exchange.error).toMatch(/within 0\.8 s \(--timeout\)/);
  });

  it('holds neither run nor replay past --timeout', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-deadline-'));
    try {
      const started = Date.now();
      const run = await runCli(['run', '--base-url', base, '--timeout', '1', '--report-dir', join(folder, 'run')], {
        timeoutMs: 20_000,
      });
      expect(run.code, run.stderr).toBe(2);
      expect(Date.now() - started).toBeLessThan(15_000);

      const recording = join(folder, 'one.ndjson');
      writeFileSync(
        recording,
        `${JSON.stringify({
          request: { method: 'GET', url: 'http://s.test/v2/checkout/abc/x', headers: { accept: 'application/json' } },
          response: { status: 200, headers: { 'content-type': 'application/json' } },
        })}\n`,
      );
      const before = Date.now();
      const replay = await runCli(
        [
          'replay',
          recording,
          '--target',
          base,
          '--recorded-base',
          'http://s.test/v2/',
          '--timeout',
          '1',
          '--report-dir',
          join(folder, 'reports'),
        ],
        { timeoutMs: 20_000 },
      );
      expect(replay.code, replay.stdout).toBe(2);
      expect(replay.stderr).toMatch(/within 1 s/);
      expect(Date.now() - before).toBeLessThan(15_000);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
