import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { checkoutRequestJson, checkoutRequestXml } from '../helpers/exchanges.js';

// Thousands of requests at once through the proxy process, and a kill -9 in the middle of them:
// no request fails, no exchange goes unrecorded, and a recording cut off by the kill still reads.

const REQUESTS = 5000;
const CONCURRENCY = 64;

let folder: string;
let service: Awaited<ReturnType<typeof startListeningCli>>;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-load-'));
  service = await startListeningCli(['serve', '--port', '0']);
});
afterAll(async () => {
  await service.stop();
  rmSync(folder, { recursive: true, force: true });
});

const FORMS = [
  { method: 'GET', type: 'application/json' },
  { method: 'GET', type: 'application/xml' },
  { method: 'POST', type: 'application/json', body: checkoutRequestJson() },
  { method: 'POST', type: 'application/xml', body: checkoutRequestXml() },
] as const;

/** Sends `count` checkout requests over `concurrency` connections; resolves with their statuses. */
async function load(base: string, count: number, concurrency: number, onAnswer?: (done: number) => void) {
  const dispatcher = new Agent({ connections: concurrency });
  const order = (await (await request(`${base}orders`, { method: 'POST', dispatcher })).body.json()) as {
    checkout: { setupUrl: string };
  };
  const statuses: (number | string)[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const form = FORMS[next % FORMS.length] as (typeof FORMS)[number];
      next += 1;
      try {
        const answer = await request(order.checkout.setupUrl, {
          method: form.method,
          headers: { accept: form.type, ...('body' in form ? { 'content-type': form.type } : {}) },
          body: 'body' in form ? form.body : undefined,
          dispatcher,
        });
        await answer.body.dump();
        statuses.push(answer.statusCode);
      } catch (error) {
        statuses.push((error as NodeJS.ErrnoException).code ?? 'error');
      }
      onAnswer?.(statuses.length);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await dispatcher.close();
  return statuses;
}

describe('the proxy under load', () => {
  it(`answers ${REQUESTS} requests at ${CONCURRENCY} concurrent and records every one, line by line`, async () => {
    const record = join(folder, 'load.ndjson');
    // The load sets up and reads checkouts only: the rules of uploads are left out.
    const proxy = await startListeningCli(['proxy', '--target', service.url, '--record', record, '--skip', 'upload.']);
    const statuses = await load(proxy.url, REQUESTS, CONCURRENCY);
    const stopped = await proxy.stop();
    expect(statuses.filter((status) => status !== 200 && status !== 201)).toEqual([]);
    expect(stopped.code).toBe(0);
    const lines = readFileSync(record, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    const exchanges = lines.map((line) => JSON.parse(line));
    // The order placed first, then every checkout request.
    expect(exchanges).toHaveLength(REQUESTS + 1);
    expect(exchanges.filter((e) => e.error !== undefined)).toEqual([]);
    expect(stopped.stdout).toContain(`${REQUESTS + 1} exchanges`);
  });

  it('leaves a recording that still reads after kill -9 in the middle of the load', async () => {
    const record = join(folder, 'killed.ndjson');
    const proxy = await startListeningCli(['proxy', '--target', service.url, '--record', record]);
    let killed: Promise<unknown> | undefined;
    await load(proxy.url, REQUESTS, CONCURRENCY, (done) => {
      if (done === 1500 && !killed) killed = proxy.stop('SIGKILL');
    });
    expect((await killed) as { signal: string }).toMatchObject({ signal: 'SIGKILL' });
    const lines = readFileSync(record, 'utf8').split('\n');
    const last = lines.pop();
    // Every complete line parses; only a last line without its newline may be cut off.
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.length).toBeGreaterThan(1000);
    // The load sets up and reads checkouts only: the rules of uploads are left out.
    const validated = await runCli(['validate', record, '--report-dir', join(folder, 'r-killed'), '--skip', 'upload.']);
    expect(validated.code).toBe(0);
    expect(validated.stderr).toContain(`${lines.length} exchanges read`);
    if (last) expect(validated.stderr).toMatch(/line \d+ is not JSON \(cut off\?\); skipped/);
  });
});
