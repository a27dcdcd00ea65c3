import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';

// CLI.md: an interrupted run exits 2 with one line, and leaves no report that could pass for its
// own: neither half of one, nor the previous run's.

let server: Server | undefined;
let folder: string | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** Places orders at once, then keeps every other request waiting; says when the first one came. */
async function slowService(): Promise<{ baseUrl: string; waiting: Promise<void> }> {
  let arrived: () => void = () => {};
  const waiting = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const service = createServer((req, res) => {
    const base = `http://127.0.0.1:${(service.address() as AddressInfo).port}/v2/`;
    if (req.url === '/v2/orders') {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          checkout: { setupUrl: `${base}checkout/slow` },
          items: [{ files: { content: { uploadUrl: `${base}files/slow` } } }],
        }),
      );
      return;
    }
    arrived();
  });
  server = service;
  service.listen(0, '127.0.0.1');
  await once(service, 'listening');
  return { baseUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}/v2/`, waiting };
}

describe('an interrupted run', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`on ${signal} stops, says so in one line, exits 2 and leaves no report, old or new`, async () => {
      const service = await slowService();
      folder = mkdtempSync(join(tmpdir(), 'print-conformance-interrupt-'));
      const reports = join(folder, 'reports');
      mkdirSync(join(reports, 'allure-results'), { recursive: true });
      // What the run before left, and a file of the user's that is no report.
      writeFileSync(join(reports, 'results.json'), '{"summary":{"failed":0}}');
      writeFileSync(join(reports, 'junit.xml'), '<testsuites/>');
      writeFileSync(join(reports, 'allure-results', '0b6c3f4e-3f7a-4a8e-9d2c-1a2b3c4d5e6f-result.json'), '{}');
      writeFileSync(join(reports, 'notes.txt'), 'mine');
      writeFileSync(join(reports, 'summary.md'), '### print-conformance: ✅');

      const child = spawn(
        process.execPath,
        [
          BIN,
          '--base-url',
          service.baseUrl,
          '--report-dir',
          reports,
          '--summary-md',
          join(reports, 'summary.md'),
          '--quiet',
        ],
        {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const exited = once(child, 'exit');
      // The suite is running: its probes wait for the slow checkout answer.
      await Promise.race([service.waiting, exited]);
      child.kill(signal);
      const [code] = await exited;

      expect(code, stderr).toBe(2);
      expect(stderr).toBe(`print-conformance: run interrupted (${signal}); no report written to ${reports}\n`);
      expect(stdout).toBe('');
      expect(readdirSync(reports).sort()).toEqual(['allure-results', 'notes.txt']);
      expect(readdirSync(join(reports, 'allure-results'))).toEqual([]);
    });
  }
});

describe('an interrupted run against the embedded reference service', () => {
  it('leaves no folder of received uploads behind', async () => {
    folder = mkdtempSync(join(tmpdir(), 'print-conformance-interrupt-'));
    const temp = join(folder, 'tmp');
    mkdirSync(temp);
    const child = spawn(process.execPath, [BIN, '--report-dir', join(folder, 'reports')], {
      cwd: ROOT,
      // The service makes its upload folder in the OS temp folder, which TMPDIR names.
      env: { ...process.env, TMPDIR: temp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const started = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.includes('(embedded reference service)')) resolve();
      });
    });
    const exited = once(child, 'exit');
    // The service is up (its upload folder made) and the suite is starting.
    await Promise.race([started, exited]);
    expect(readdirSync(temp).filter((name) => name.startsWith('print-conformance-uploads-'))).toHaveLength(1);
    child.kill('SIGINT');
    const [code] = await exited;
    expect(code, stderr).toBe(2);
    expect(readdirSync(temp).filter((name) => name.startsWith('print-conformance-uploads-'))).toEqual([]);
  });
});
