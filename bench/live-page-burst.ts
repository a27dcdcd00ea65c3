import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { MiB, processCpuMs, processMemory } from './process-memory.js';
import { startListening, stop } from './start-cli.js';

// The proxy's memory and CPU through a burst of 10 000 exchanges with the live page open in
// headless Chromium (an event stream reading every one, the verdicts read again as they change):
// the window of exchanges it keeps is bounded, so its resident memory after the burst stays near
// where it was after the first thousand. PRINT_CONFORMANCE_BIN names another checkout's
// bin/print-conformance.js (an older build) to measure it the same way.

const EXCHANGES = Number(process.env.BENCH_BURST ?? 10_000);
const CONNECTIONS = 16;
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const BIN = process.env.PRINT_CONFORMANCE_BIN;

async function send(url: string, count: number, agent: Agent): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        next += 1;
        const answer = await request(url, { dispatcher: agent, headers: { accept: 'application/json' } });
        await answer.body.dump();
      }
    }),
  );
}

export async function benchLivePageBurst() {
  const service = await startListening(['serve', '--port', '0'], false, BIN);
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-bench-live-'));
  const proxy = await startListening(
    ['proxy', '--target', service.url, '--summary-interval', '0', '--quiet'],
    true,
    BIN,
  );
  let browser: ChildProcess | undefined;
  const agent = new Agent({ connections: CONNECTIONS });
  try {
    const order = (await (await request(`${proxy.url}orders`, { method: 'POST', dispatcher: agent })).body.json()) as {
      checkout: { setupUrl: string };
    };
    const page = `${proxy.url}__print-conformance/`;
    if (CHROMIUM)
      browser = spawn(
        CHROMIUM,
        ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${folder}`, '--remote-debugging-port=0', page],
        { stdio: 'ignore', detached: true },
      );
    // The page opens and its event stream is attached before the burst.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const pid = proxy.child.pid as number;
    const cpuBefore = processCpuMs(pid);
    const started = performance.now();
    await send(order.checkout.setupUrl, 1000, agent);
    const afterFirst = processMemory(pid);
    await send(order.checkout.setupUrl, EXCHANGES - 1000, agent);
    const wallMs = performance.now() - started;
    const cpuBurst = processCpuMs(pid) - cpuBefore;
    // The page's stream and its verdict reads after the last exchange count too.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const afterAll = processMemory(pid);
    return {
      build: BIN ?? 'this checkout',
      exchanges: EXCHANGES,
      pageOpen: Boolean(CHROMIUM),
      burstWallS: Math.round(wallMs / 100) / 10,
      proxyCpuBurstS: Math.round(cpuBurst / 100) / 10,
      proxyCpuAfterS: Math.round((processCpuMs(pid) - cpuBefore) / 100) / 10,
      proxyCpuMsPerExchange: Math.round((cpuBurst / EXCHANGES) * 100) / 100,
      rssAfterFirstThousandMiB: Math.round(afterFirst.rss / MiB),
      rssAfterBurstMiB: Math.round(afterAll.rss / MiB),
      peakRssMiB: Math.round(afterAll.hwm / MiB),
    };
  } finally {
    await agent.close();
    if (browser?.pid) {
      try {
        process.kill(-browser.pid, 'SIGTERM');
      } catch {
        // Gone already.
      }
    }
    await stop(proxy.child);
    await stop(service.child);
    rmSync(folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchLivePageBurst());
