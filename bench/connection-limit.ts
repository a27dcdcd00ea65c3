import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { startListening, stop } from './start-cli.js';

// The proxy with --max-connections 40 under 300 CONNECT tunnels, then 300 event streams, held
// open at once: those past the limit are answered 503, the proxy's descriptors stay bounded, and
// it serves again once they close. Alone:
//
//   npm run build && npx tsx bench/connection-limit.ts

const LIMIT = 40;
const HELD = 300;

function descriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Opens `count` connections that each send `request`, and waits for each one's first bytes (or close). */
async function hold(
  port: number,
  count: number,
  request: string,
): Promise<{ sockets: Socket[]; statuses: Record<string, number> }> {
  const statuses: Record<string, number> = {};
  const sockets = await Promise.all(
    Array.from({ length: count }, async () => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      await once(socket, 'connect');
      socket.write(request);
      let first = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        first += chunk;
      });
      while (first === '' && !socket.destroyed) await Promise.race([once(socket, 'data'), once(socket, 'close')]);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(first)?.[1] ?? 'none';
      statuses[status] = (statuses[status] ?? 0) + 1;
      return socket;
    }),
  );
  return { sockets, statuses };
}

async function release(sockets: Socket[], pid: number, baseline: number): Promise<void> {
  for (const socket of sockets) socket.destroy();
  for (let tries = 0; tries < 100 && descriptors(pid) > baseline + 2; tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

export async function benchConnectionLimit() {
  const far = createServer((socket) => socket.on('error', () => {})).listen(0, '127.0.0.1');
  await once(far, 'listening');
  const farPort = (far.address() as { port: number }).port;
  const service = await startListening(['serve', '--port', '0']);
  const proxy = await startListening(
    ['proxy', '--target', service.url, '--summary-interval', '0', '--max-connections', String(LIMIT), '--quiet'],
    true,
  );
  const pid = proxy.child.pid as number;
  const port = Number(new URL(proxy.url).port);
  try {
    const baseline = descriptors(pid);
    const tunnels = await hold(
      port,
      HELD,
      `CONNECT 127.0.0.1:${farPort} HTTP/1.1\r\nhost: 127.0.0.1:${farPort}\r\n\r\n`,
    );
    const withTunnels = descriptors(pid);
    await release(tunnels.sockets, pid, baseline);
    const streams = await hold(port, HELD, 'GET /__print-conformance/api/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    const withStreams = descriptors(pid);
    await release(streams.sockets, pid, baseline);
    const served = await fetch(`${proxy.url}orders/none`);
    await served.text();
    return {
      maxConnections: LIMIT,
      tunnels: tunnels.statuses,
      streams: streams.statuses,
      descriptors: { baseline, withTunnels, withStreams },
      afterwards: served.status,
    };
  } finally {
    await stop(proxy.child);
    await stop(service.child);
    far.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchConnectionLimit());
