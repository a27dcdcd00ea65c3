import { once } from 'node:events';
import { createServer } from 'node:http';
import { Agent, request } from 'undici';
import { MiB, processMemory } from './process-memory.js';
import { startListening, stop } from './start-cli.js';

// The proxy's memory through 200 checkout set-ups with 4 MiB JSON bodies: each body is held and
// validated whole (under the 8 MiB validate limit) and cut to what the live page shows; the page's
// window must keep only the cut, not the body it was cut from. Alone:
//
//   npm run build && npx tsx bench/live-window-memory.ts

const SETUPS = Number(process.env.BENCH_SETUPS ?? 200);
const BODY_SIZE = 4 * MiB;
const CONNECTIONS = 4;

/** A checkout request of `size` bytes: the members the interface wants, and a long note to make up the size. */
function checkoutBody(size: number, index: number): string {
  const start = `{"returnUrl":"https://shop.example.test/back/${index}","note":"`;
  const end = '"}';
  return `${start}${'x'.repeat(size - start.length - end.length)}${end}`;
}

export async function benchLiveWindowMemory() {
  // A target that reads every body and answers a small JSON document.
  const target = createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  }).listen(0, '127.0.0.1');
  await once(target, 'listening');
  const targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}/v2/`;
  const proxy = await startListening(['proxy', '--target', targetUrl, '--summary-interval', '0', '--quiet'], true);
  const pid = proxy.child.pid as number;
  const agent = new Agent({ connections: CONNECTIONS });
  try {
    const before = processMemory(pid);
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < SETUPS) {
          next += 1;
          const answer = await request(`${proxy.url}checkout/c${next}`, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body: checkoutBody(BODY_SIZE, next),
          });
          await answer.body.dump();
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = processMemory(pid);
    const window = (await (await request(`${proxy.url}__print-conformance/api/exchanges`)).body.json()) as {
      first: number;
      last: number;
    };
    return {
      setups: SETUPS,
      bodyMiB: BODY_SIZE / MiB,
      rssBeforeMiB: Math.round(before.rss / MiB),
      rssAfterMiB: Math.round(after.rss / MiB),
      peakRssMiB: Math.round(after.hwm / MiB),
      windowHolds: `${window.first}-${window.last}`,
    };
  } finally {
    await agent.close();
    await stop(proxy.child);
    target.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchLiveWindowMemory());
