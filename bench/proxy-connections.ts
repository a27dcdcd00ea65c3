import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { MiB, processMemory } from './process-memory.js';
import { startListening, stop } from './start-cli.js';

// The proxy's resident memory with 1 000 client connections open at once, of four kinds: idle;
// trickling a request head; trickling an upload (PDF and JSON); and pipelining uploads behind a
// request the target is slow to answer. Loopback only, every loop bounded. `npm run bench` runs it
// with the proxy's defaults; alone:
//
//   npm run build && npx tsx bench/proxy-connections.ts [-- proxy options, e.g. --memory-budget 32MiB]

const IDLE = 400;
const TRICKLING_HEADS = 300;
const TRICKLING_PDF = 100;
const TRICKLING_JSON = 50;
const PIPELINING = 150;
/** Each trickled upload grows by this much per tick, up to UPLOAD_SIZE. */
const TICK_MS = 200;
const UPLOAD_STEP = 64 * 1024;
const UPLOAD_SIZE = 2 * MiB;
/** Pipelined bytes each pipelining client writes behind its slow request. */
const PIPELINED_SIZE = 2 * MiB;
const MEASURE_MS = 8000;

export async function benchProxyConnections(proxyArgs: string[] = []) {
  // A target that reads every body and answers at once, but for /slow, answered after the run.
  const slow: (() => void)[] = [];
  const target = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const answer = () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      if (request.url?.endsWith('/slow')) slow.push(answer);
      else answer();
    });
  }).listen(0, '127.0.0.1');
  await once(target, 'listening');
  const targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}/v2/`;

  const { child, url } = await startListening(
    ['proxy', '--target', targetUrl, '--summary-interval', '0', '--max-connections', '2000', ...proxyArgs],
    // Connections broken off at the end are logged by the proxy as such: nothing to show.
    true,
  );
  const pid = child.pid as number;
  const { port } = new URL(url);
  const baseline = processMemory(pid).rss;

  const sockets: Socket[] = [];
  const kinds = new Map<Socket, string>();
  let kind = 'idle';
  async function open(): Promise<Socket> {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    socket.resume();
    await once(socket, 'connect');
    sockets.push(socket);
    kinds.set(socket, kind);
    return socket;
  }

  const head = (method: string, path: string, fields: string) =>
    `${method} /${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${fields}\r\n`;
  const tricklers: { socket: Socket; next: () => string | Buffer | undefined }[] = [];

  for (let index = 0; index < IDLE; index += 1) await open();
  kind = 'tricklingHead';
  for (let index = 0; index < TRICKLING_HEADS; index += 1) {
    const text = head('GET', `checkout/${index}`, 'Accept: application/json\r\n'.repeat(200));
    let at = 0;
    tricklers.push({ socket: await open(), next: () => (at < text.length ? text[at++] : undefined) });
  }
  for (const [count, type, fill] of [
    [TRICKLING_PDF, 'application/pdf', 0x25],
    [TRICKLING_JSON, 'application/json', 0x20],
  ] as const) {
    kind = `trickling ${type}`;
    for (let index = 0; index < count; index += 1) {
      const socket = await open();
      socket.write(head('POST', `files/${index}`, `Content-Type: ${type}\r\nContent-Length: ${UPLOAD_SIZE}\r\n`));
      let sent = 0;
      tricklers.push({
        socket,
        next: () => {
          if (sent >= UPLOAD_SIZE) return undefined;
          sent += UPLOAD_STEP;
          return Buffer.alloc(UPLOAD_STEP, fill);
        },
      });
    }
  }
  kind = 'pipelining';
  const pipelined = Buffer.alloc(PIPELINED_SIZE, 0x25);
  for (let index = 0; index < PIPELINING; index += 1) {
    const socket = await open();
    socket.write(head('GET', 'slow', ''));
    // Uploads of 256 KiB each, pipelined behind the slow GET, written at once.
    const each = 256 * 1024;
    for (let at = 0; at < PIPELINED_SIZE; at += each)
      socket.write(
        Buffer.concat([
          Buffer.from(head('POST', 'files/p', `Content-Type: application/pdf\r\nContent-Length: ${each}\r\n`)),
          pipelined.subarray(at, at + each),
        ]),
      );
  }

  let peak = 0;
  const started = performance.now();
  while (performance.now() - started < MEASURE_MS) {
    for (const trickler of tricklers) {
      const piece = trickler.next();
      if (piece !== undefined && !trickler.socket.destroyed) trickler.socket.write(piece);
    }
    peak = Math.max(peak, processMemory(pid).rss);
    await sleep(TICK_MS);
  }
  const closedEarly: Record<string, number> = {};
  for (const socket of sockets) {
    const name = kinds.get(socket) as string;
    if (socket.destroyed || socket.readableEnded) closedEarly[name] = (closedEarly[name] ?? 0) + 1;
  }
  for (const socket of sockets) socket.destroy();
  for (const answer of slow) answer();
  await stop(child);
  target.close();
  target.closeAllConnections();

  const round = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;
  return {
    connections: sockets.length,
    closedByTheProxyDuringTheRun: closedEarly,
    mix: {
      idle: IDLE,
      tricklingHeads: TRICKLING_HEADS,
      tricklingPdf: TRICKLING_PDF,
      tricklingJson: TRICKLING_JSON,
      pipelining: PIPELINING,
    },
    proxyArgs,
    rssMiB: { atStart: round(baseline), peak: round(peak), growth: round(peak - baseline) },
  };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const proxyArgs = process.argv.slice(2).filter((arg) => arg !== '--');
  console.log(JSON.stringify(await benchProxyConnections(proxyArgs), null, 2));
}
