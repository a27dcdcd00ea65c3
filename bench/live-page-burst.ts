import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { MiB, processMemory } from './process-memory.js';
import { BIN, builds, startListening, stop } from './start-cli.js';

// The proxy's memory through a burst of 10 000 exchanges with the live page open in headless
// Chromium (an event stream reading every one): the window of exchanges it keeps is bounded, so
// its resident memory after the burst stays near where it was after the first thousand. With
// BENCH_BASE (see start-cli.ts), the base build's proxy goes through the same burst after this
// one's (its page opened too, where it has one), for its memory at start and after.

const EXCHANGES = Number(process.env.BENCH_BURST ?? 10_000);
const CONNECTIONS = 16;
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

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

export async function benchLivePageBurst(bin = BIN) {
  const service = await startListening(['serve', '--port', '0']);
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-bench-live-'));
  const proxy = await startListening(['proxy', '--target', service.url, '--summary-interval', '0'], true, bin);
  // Once it has settled after its listening line, before any request.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const atStart = processMemory(proxy.child.pid as number);
  let browser: ChildProcess | undefined;
  const agent = new Agent({ connections: CONNECTIONS });
  try {
    const order = (await (await request(`${proxy.url}orders`, { method: 'POST', dispatcher: agent })).body.json()) as {
      checkout: { setupUrl: string };
    };
    const page = `${proxy.url}__print-conformance/`;
    // A build without the live page forwards the page's path to the service, which answers 404.
    const pageAnswer = await request(page, { dispatcher: agent });
    await pageAnswer.body.dump();
    if (CHROMIUM)
      browser = spawn(
        CHROMIUM,
        ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${folder}`, '--remote-debugging-port=0', page],
        { stdio: 'ignore', detached: true },
      );
    // The page opens and its event stream is attached before the burst.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const pid = proxy.child.pid as number;
    await send(order.checkout.setupUrl, 1000, agent);
    const afterFirst = processMemory(pid);
    await send(order.checkout.setupUrl, EXCHANGES - 1000, agent);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const afterAll = processMemory(pid);
    return {
      exchanges: EXCHANGES,
      pageOpen: Boolean(CHROMIUM) && pageAnswer.statusCode === 200,
      rssAtStartMiB: Math.round(atStart.rss / MiB),
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

/** The burst through this build's proxy, then through the base build's when BENCH_BASE names one. */
export async function benchLivePageBursts(): Promise<Record<string, Awaited<ReturnType<typeof benchLivePageBurst>>>> {
  const measured: Record<string, Awaited<ReturnType<typeof benchLivePageBurst>>> = {};
  for (const { build, bin } of builds()) measured[build] = await benchLivePageBurst(bin);
  return measured;
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await benchLivePageBursts());
