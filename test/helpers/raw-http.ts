import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { type ProxyHandle, type ProxyOptions, startProxy } from '../../proxy/proxy-server.js';

// Bytes on the wire, both sides of the proxy: clients that write what a test says, and targets
// that answer what a test says, for the faults no well-behaved HTTP library would produce.

/** Sends raw bytes on a fresh connection and returns all that came back by the time it closed. */
export async function rawExchange(url: string, bytes: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => {
    answer += chunk;
  });
  socket.on('error', () => {});
  socket.write(bytes);
  await once(socket, 'close');
  return answer;
}

/** A connection left open, with what it has received so far. */
export async function openConnection(url: string): Promise<{ socket: Socket; received: () => string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => {
    answer += chunk;
  });
  socket.on('error', () => {});
  return { socket, received: () => answer };
}

/** A target made by hand with a proxy in front; both closed after `use`. */
export async function throughProxyTo(
  target: Server,
  use: (proxy: ProxyHandle) => Promise<void>,
  options: Partial<ProxyOptions> = {},
): Promise<void> {
  target.listen(0, '127.0.0.1');
  await once(target, 'listening');
  const proxy = await startProxy({
    target: `http://127.0.0.1:${(target.address() as { port: number }).port}/v2/`,
    ...options,
  });
  try {
    await use(proxy);
  } finally {
    await proxy.close();
    target.close();
  }
}

/** A target that answers the n-th request it reads (counted over all connections) with `answers[n]`. */
export function scriptedTarget(answers: (string | ((socket: Socket) => void))[]): { server: Server; heads: string[] } {
  const heads: string[] = [];
  const server = createServer((socket) => {
    let pending = '';
    socket.setEncoding('latin1');
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      pending += chunk;
      // Requests without bodies, or ended by a zero chunk: enough for these targets.
      for (let end = headEnd(pending); end > 0; end = headEnd(pending)) {
        const head = pending.slice(0, end);
        pending = pending.slice(end);
        heads.push(head);
        const answer = answers[heads.length - 1] ?? answers[answers.length - 1];
        if (typeof answer === 'function') answer(socket);
        else if (answer !== undefined) socket.write(answer);
      }
    });
  });
  return { server, heads };
}

function headEnd(text: string): number {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return -1;
  if (!/transfer-encoding: chunked/i.test(text.slice(0, end))) return end + 4;
  const last = text.indexOf('\r\n0\r\n', end);
  if (last < 0) return -1;
  const close = text.indexOf('\r\n\r\n', last + 2);
  return close < 0 ? -1 : close + 4;
}
