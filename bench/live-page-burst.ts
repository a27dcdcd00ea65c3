import { Agent, request } from 'undici';
import { CHROMIUM, ChromiumPage } from '../test/helpers/chromium-page.js';
import { MiB, processCpuMs, processMemory } from './process-memory.js';
import { startListening, stop } from './start-cli.js';

// The proxy's memory and CPU through a burst of 10 000 exchanges with the live page open in
// headless Chromium (an event stream reading every one, the verdicts read again as they change):
// the window of exchanges it keeps is bounded, so its resident memory after the burst stays near
// where it was after the first thousand. PRINT_CONFORMANCE_BIN names another checkout's
// bin/print-conformance.js (an older build) to measure it the same way.

const EXCHANGES = Number(process.env.BENCH_BURST ?? 10_000);
const CONNECTIONS = 16;
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
  const proxy = await startListening(
    ['proxy', '--target', service.url, '--summary-interval', '0', '--quiet'],
    true,
    BIN,
  );
  let browser: ChromiumPage | undefined;
  const agent = new Agent({ connections: CONNECTIONS });
  try {
    const order = (await (await request(`${proxy.url}orders`, { method: 'POST', dispatcher: agent })).body.json()) as {
      checkout: { setupUrl: string };
    };
    const page = `${proxy.url}__print-conformance/`;
    // The page is loaded, and its event stream attached, before the burst.
    if (CHROMIUM) {
      browser = await ChromiumPage.launch('1280,900');
      await browser.open(page);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const pid = proxy.child.pid as number;
    const before = processMemory(pid);
    const cpuBefore = processCpuMs(pid);
    const started = performance.now();
    await send(order.checkout.setupUrl, 1000, agent);
    const afterFirst = processMemory(pid);
    await send(order.checkout.setupUrl, EXCHANGES - 1000, agent);
    const wallMs = performance.now() - started;
    const cpuBurst = processCpuMs(pid) - cpuBefore;
    // The page's stream and its verdict reads after the last exchange count too: until it shows them all.
    const shown = `live: ${EXCHANGES + 1} exchanges so far`;
    let caughtUp = Number.NaN;
    for (const waited = performance.now(); browser && performance.now() - waited < 60_000; ) {
      if ((await browser.evaluate<string>(`document.getElementById('state').textContent`)) === shown) {
        caughtUp = performance.now() - started;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const afterAll = processMemory(pid);
    return {
      build: BIN ?? 'this checkout',
      exchanges: EXCHANGES,
      pageOpen: Boolean(browser),
      pageShowedAllAfterS: Math.round(caughtUp / 100) / 10,
      burstWallS: Math.round(wallMs / 100) / 10,
      proxyCpuBurstS: Math.round(cpuBurst / 100) / 10,
      proxyCpuAfterS: Math.round((processCpuMs(pid) - cpuBefore) / 100) / 10,
      proxyCpuMsPerExchange: Math.round((cpuBurst / EXCHANGES) * 100) / 100,
      rssBeforeMiB: Math.round(before.rss / MiB),
      rssAfterFirstThousandMiB: Math.round(afterFirst.rss / MiB),
      rssAfterBurstMiB: Math.round(afterAll.rss / MiB),
      peakRssMiB: Math.round(afterAll.hwm / MiB),
    };
  } finally {
    await agent.close();
    await browser?.close();
    await stop(proxy.child);
    await stop(service.child);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchLivePageBurst());
