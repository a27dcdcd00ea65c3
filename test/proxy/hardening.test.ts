import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, createServer as createNetServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { type ProxyHandle, startProxy } from '../../proxy/proxy-server.js';
import type { RecordedExchange } from '../../proxy/recorder.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';
import { proxiedService } from '../helpers/proxy-fixture.js';

// The proxy sits in the path of real traffic: hostile bodies, silent clients, lying clients,
// crowds of requests and a stop in the middle of an upload must neither crash it nor lose a record.

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<Checkout><ReturnUrl>&lol9;</ReturnUrl></Checkout>`;
const EXTERNAL_ENTITY = `<?xml version="1.0"?>
<!DOCTYPE Checkout [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<Checkout><ReturnUrl>&xxe;</ReturnUrl></Checkout>`;

/**
 * Sends raw bytes on a fresh connection and returns what came back by the time the server closed
 * it (requests say "Connection: close"). `hangUp`: the client itself drops the connection after a
 * moment, as a client that lied about its Content-Length would.
 */
/** A GET on one client connection, and two of them, the second closing it. */
const GET = 'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n';
const TWO_GETS = GET + GET.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n');

/** A target made by hand (to misbehave as a test needs) with a proxy in front; both closed after `use`. */
async function throughProxyTo(target: Server, use: (proxy: ProxyHandle) => Promise<void>): Promise<void> {
  target.listen(0, '127.0.0.1');
  await once(target, 'listening');
  const proxy = await startProxy({ target: `http://127.0.0.1:${(target.address() as { port: number }).port}/v2/` });
  try {
    await use(proxy);
  } finally {
    await proxy.close();
    target.close();
  }
}

async function raw(url: string, bytes: string | Buffer, { hangUp = false, halfClose = false } = {}): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => {
    answer += chunk;
  });
  if (halfClose) socket.end(bytes);
  else socket.write(bytes);
  if (hangUp) setTimeout(() => socket.destroy(), 100);
  await once(socket, 'close');
  return answer;
}

/** A connection that sends `bytes` (or nothing) and then stays silent. */
async function silent(url: string, bytes = ''): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  if (bytes) socket.write(bytes);
  socket.on('error', () => {});
  return socket;
}

/** A target that answers every request alike and keeps the request bodies it received. */
async function capturingTarget(status: number, type: string, text: string) {
  const bodies: string[] = [];
  const server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    bodies.push(Buffer.concat(chunks).toString('utf8'));
    response.writeHead(status, { 'content-type': type }).end(text);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-hardening-'));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v2/`,
    bodies,
    folder,
    close: async () => {
      server.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

const recordedIn = (file: string): RecordedExchange[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

async function checkoutUrl(base: string): Promise<string> {
  const order = (await (await request(`${base}orders`, { method: 'POST' })).body.json()) as {
    checkout: { setupUrl: string };
  };
  return order.checkout.setupUrl;
}

describe('the proxy under hostile input and faults', () => {
  it('never expands entities: a bomb and an external entity go through unchanged and are flagged', async () => {
    const target = await capturingTarget(400, 'application/json', '{"message":"bad XML"}');
    const proxy = await startProxy({ target: target.url, recordFile: join(target.folder, 't.ndjson') });
    try {
      for (const body of [BILLION_LAUGHS, EXTERNAL_ENTITY]) {
        const answer = await request(`${proxy.url}checkout/abc`, {
          method: 'POST',
          headers: { 'content-type': 'application/xml', accept: 'application/xml' },
          body,
        });
        await answer.body.text();
        expect(answer.statusCode).toBe(400);
      }
      await proxy.close();
      // The target saw exactly the bytes sent: nothing was expanded or resolved on the way.
      expect(target.bodies).toEqual([BILLION_LAUGHS, EXTERNAL_ENTITY]);
      const recorded = recordedIn(join(target.folder, 't.ndjson'));
      expect(recorded).toHaveLength(2);
      for (const exchange of recorded) {
        const wellFormed = exchange.violations.find((v) => v.rule === 'format.well-formed' && v.side === 'request');
        expect(wellFormed?.message).toMatch(/declarations are not accepted/);
        expect(JSON.stringify(exchange)).not.toContain('lollollol');
        expect(JSON.stringify(exchange)).not.toContain('root:');
      }
    } finally {
      await proxy.close();
      await target.close();
    }
  });

  it('flags a target answering with a DOCTYPE, and passes its bytes on unchanged', async () => {
    const target = await capturingTarget(200, 'application/xml', EXTERNAL_ENTITY);
    const proxy = await startProxy({ target: target.url, recordFile: join(target.folder, 't.ndjson') });
    try {
      const answer = await request(`${proxy.url}checkout/abc`, { headers: { accept: 'application/xml' } });
      expect(await answer.body.text()).toBe(EXTERNAL_ENTITY);
      await proxy.close();
      const [exchange] = recordedIn(join(target.folder, 't.ndjson'));
      expect(exchange?.violations).toContainEqual(
        expect.objectContaining({ rule: 'format.well-formed', side: 'response' }),
      );
    } finally {
      await proxy.close();
      await target.close();
    }
  });

  it('forwards a document nested 200 000 levels deep and records it as not read, staying up', async () => {
    const deep = `<Checkout>${'<A>'.repeat(200_000)}${'</A>'.repeat(200_000)}</Checkout>`;
    const target = await capturingTarget(200, 'application/xml', deep);
    const proxy = await startProxy({ target: target.url, recordFile: join(target.folder, 't.ndjson') });
    try {
      const answer = await request(`${proxy.url}checkout/abc`, { headers: { accept: 'application/xml' } });
      expect(await answer.body.text()).toBe(deep);
      expect(answer.headers['print-conformance-violations']).toContain('format.well-formed (response)');
      const again = await request(`${proxy.url}checkout/abc`, { headers: { accept: 'application/xml' } });
      await again.body.dump();
      expect(again.statusCode).toBe(200);
      await proxy.close();
      const [exchange] = recordedIn(join(target.folder, 't.ndjson'));
      expect(exchange?.violations.find((v) => v.rule === 'format.well-formed')?.message).toContain('nested deeper');
    } finally {
      await proxy.close();
      await target.close();
    }
  });

  it('forwards and records an exchange it fails to judge, and logs no query with it', async () => {
    const target = await capturingTarget(200, 'application/json', '{}');
    const log: string[] = [];
    // Any fault inside judging stands in for a bug in the core.
    const failing = {
      has: () => {
        throw new Error('judging broke');
      },
    } as unknown as Set<string>;
    const proxy = await startProxy({
      target: target.url,
      recordFile: join(target.folder, 't.ndjson'),
      selected: failing,
      log: (line) => log.push(line),
    });
    try {
      const answer = await request(`${proxy.url}checkout/abc?access_token=t0ken-in-query`);
      expect(await answer.body.text()).toBe('{}');
      await proxy.close();
      const [exchange] = recordedIn(join(target.folder, 't.ndjson'));
      expect(exchange?.error).toBe('print-conformance could not judge this exchange: judging broke');
      expect(log.join('\n')).toContain('GET /v2/checkout/abc: print-conformance could not judge this exchange');
      expect(log.join('\n')).not.toContain('t0ken-in-query');
    } finally {
      await proxy.close();
      await target.close();
    }
  });

  it('passes bodies over the validation limit through whole, recorded as not validated', async () => {
    const big = JSON.stringify({ returnUrl: `https://e.test/${'x'.repeat(5000)}` });
    const target = await capturingTarget(200, 'application/json', big);
    const proxy = await startProxy({
      target: target.url,
      recordFile: join(target.folder, 't.ndjson'),
      validateLimit: 1024,
    });
    try {
      const answer = await request(`${proxy.url}checkout/abc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: big,
      });
      expect(await answer.body.text()).toBe(big);
      await proxy.close();
      expect(target.bodies).toEqual([big]);
      const [exchange] = recordedIn(join(target.folder, 't.ndjson'));
      expect(exchange?.request.body?.skipped).toMatch(/too large/);
      expect(exchange?.response?.body?.skipped).toMatch(/too large/);
      expect(exchange?.request.body?.size).toBe(big.length);
    } finally {
      await proxy.close();
      await target.close();
    }
  });

  it('records malformed, wrongly encoded and chunked bodies as violations, never crashing', async () => {
    const setup = await proxiedService();
    try {
      const url = await checkoutUrl(setup.proxy.url);
      const path = new URL(url).pathname;
      const json = { 'content-type': 'application/json', accept: 'application/json' };
      const invalidUtf8 = Buffer.concat([
        Buffer.from('{"returnUrl": "https://e.test/'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}'),
      ]);
      const bodies: (string | Buffer)[] = [invalidUtf8, '{"returnUrl": "https://e.test/', '<Checkout><ReturnUrl>', ''];
      for (const body of bodies) {
        const answer = await request(url, { method: 'POST', headers: json, body });
        await answer.body.text();
      }
      // Chunked transfer coding passes through and is judged whole.
      const chunked = await raw(
        setup.proxy.url,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${(() => {
          const text = checkoutRequestJson();
          return `${text.length.toString(16)}\r\n${text}\r\n0\r\n\r\n`;
        })()}`,
      );
      expect(chunked).toMatch(/^HTTP\/1\.1 20[01]/);
      // A body shorter than its Content-Length, then the client hangs up.
      await raw(
        setup.proxy.url,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"returnUrl": "https://`,
        { hangUp: true },
      );
      // Still serving.
      expect((await request(url, { headers: { accept: 'application/json' } })).statusCode).toBe(200);
      const recorded = await setup.recorded();
      const posts = recorded.filter((e) => e.request.method === 'POST' && e.request.url.endsWith(path));
      expect(posts.length).toBe(bodies.length + 2);
      const wellFormed = posts.filter((e) =>
        e.violations.some((v) => v.rule === 'format.well-formed' && v.side === 'request'),
      );
      expect(wellFormed.length).toBeGreaterThanOrEqual(3);
      expect(posts.some((e) => e.error === 'the client broke off the request')).toBe(true);
      expect(posts.some((e) => e.response?.status === 201 || e.response?.status === 200)).toBe(true);
    } finally {
      await setup.dispose();
    }
  });

  it('records a target answer that is shorter than its Content-Length as failed, and keeps serving', async () => {
    let lie = true;
    const target = createServer((_request, response) => {
      if (!lie) return response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
      response.write('{"amount": 1');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    await throughProxyTo(target, async (proxy) => {
      // Held to be judged, nothing of it had gone to the client: it is told why, with a 502.
      const lied = await request(`${proxy.url}checkout/abc`);
      expect(lied.statusCode).toBe(502);
      expect(await lied.body.text()).toContain('the target broke off the answer');
      lie = false;
      expect((await request(`${proxy.url}checkout/abc`)).statusCode).toBe(200);
    });
  });

  it('answers pipelined requests in order, HEAD without a body, and a client that half-closes', async () => {
    const setup = await proxiedService();
    try {
      const path = new URL(await checkoutUrl(setup.proxy.url)).pathname;
      const get = (accept: string, close = '') =>
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: ${accept}\r\n${close}\r\n`;
      const both = await raw(
        setup.proxy.url,
        get('application/json') + get('application/xml', 'Connection: close\r\n'),
      );
      const answers = both.split(/(?=HTTP\/1\.1 \d{3} )/);
      expect(answers).toHaveLength(2);
      expect(answers[0]).toMatch(/^HTTP\/1\.1 200[\s\S]*content-type: application\/json/i);
      expect(answers[1]).toMatch(/^HTTP\/1\.1 200[\s\S]*content-type: application\/xml/i);

      const head = await raw(
        setup.proxy.url,
        `HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nConnection: close\r\n\r\n`,
      );
      // The reference service answers HEAD 405; its Content-Length describes a body HEAD never gets.
      expect(head).toMatch(/^HTTP\/1\.1 405[\s\S]*content-length: [1-9]/i);
      expect(head.endsWith('\r\n\r\n')).toBe(true);

      // Two requests, then the client shuts its side: both are answered, the last with close.
      const halfClosed = await raw(setup.proxy.url, get('application/json') + get('application/xml'), {
        halfClose: true,
      });
      const late = halfClosed.split(/(?=HTTP\/1\.1 \d{3} )/);
      expect(late).toHaveLength(2);
      expect(late[0]).toMatch(/^HTTP\/1\.1 200[\s\S]*connection: keep-alive[\s\S]*"paymentUrl"/);
      expect(late[1]).toMatch(/^HTTP\/1\.1 200[\s\S]*connection: close[\s\S]*<PaymentUrl>/);
      const reads = (await setup.recorded()).filter((e) => e.request.method !== 'POST');
      expect(reads.map((e) => e.response?.status)).toEqual([200, 200, 405, 200, 200]);
    } finally {
      await setup.dispose();
    }
  });

  it('passes a 100 Continue on, and in enforce mode answers it itself before judging the body', async () => {
    for (const mode of ['report', 'enforce'] as const) {
      const setup = await proxiedService({ proxy: { mode } });
      try {
        const { hostname, port, pathname } = new URL(await checkoutUrl(setup.proxy.url));
        const body = checkoutRequestJson();
        const socket = connect(Number(port), hostname);
        socket.setEncoding('latin1');
        let answer = '';
        socket.on('data', (chunk) => {
          answer += chunk;
        });
        socket.write(
          `POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
        );
        while (!answer.includes('\r\n\r\n')) await once(socket, 'data');
        expect(answer, mode).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
        socket.write(body);
        await once(socket, 'close');
        expect(answer, mode).toMatch(/\r\n\r\nHTTP\/1\.1 20[01] /);
        const [setUp] = (await setup.recorded()).filter(
          (e) => e.request.method === 'POST' && e.request.url.endsWith(pathname),
        );
        expect(setUp?.request.body?.text).toBe(body);
        expect(setUp?.violations.filter((v) => v.severity !== 'observe')).toEqual([]);
      } finally {
        await setup.dispose();
      }
    }
  });

  it('answers 502 to a target that sends no valid HTTP, records it, and serves the next request', async () => {
    let garbage = true;
    const target = createNetServer((socket) =>
      socket.once('data', () =>
        socket.end(
          garbage
            ? 'HTTP/1.1 two hundred OK\r\n\r\n'
            : 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
        ),
      ),
    ).listen(0, '127.0.0.1');
    await once(target, 'listening');
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-garbage-'));
    const recordFile = join(folder, 't.ndjson');
    const proxy = await startProxy({
      target: `http://127.0.0.1:${(target.address() as { port: number }).port}/v2/`,
      recordFile,
    });
    try {
      const answer = await request(`${proxy.url}checkout/abc`);
      expect(answer.statusCode).toBe(502);
      expect(((await answer.body.json()) as { message: string }).message).toMatch(/sent no valid HTTP answer \(HPE_/);
      garbage = false;
      const next = await request(`${proxy.url}checkout/abc`);
      expect(next.statusCode).toBe(200);
      await next.body.dump();
      await proxy.close();
      expect(recordedIn(recordFile)[0]?.error).toMatch(/sent no valid HTTP answer/);
    } finally {
      await proxy.close();
      target.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('sends a GET again on a new connection when a kept one closes under it, but never a POST', async () => {
    // The target closes each kept-alive connection as the second request arrives on it, without a
    // word, as a server whose idle timeout fires just then does: by FIN, or by RST.
    for (const close of ['end', 'reset'] as const) {
      const seen: string[] = [];
      const target = createNetServer((socket) => {
        let heads = 0;
        socket.on('data', (chunk) => {
          for (const head of chunk.toString('latin1').match(/^[A-Z]+ \S+/gm) ?? []) {
            heads += 1;
            seen.push(head);
            if (heads === 2) {
              if (close === 'end') socket.end();
              else socket.resetAndDestroy();
              return;
            }
            socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
          }
        });
        socket.on('error', () => {});
      });
      await throughProxyTo(target, async (proxy) => {
        const gets = await raw(proxy.url, TWO_GETS);
        expect(gets.match(/HTTP\/1\.1 \d{3}/g), close).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
        expect(seen, close).toEqual(['GET /v2/checkout/abc', 'GET /v2/checkout/abc', 'GET /v2/checkout/abc']);

        seen.length = 0;
        const post = `POST /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`;
        const posted = await raw(proxy.url, GET + post);
        expect(posted.match(/HTTP\/1\.1 \d{3}/g), close).toEqual(['HTTP/1.1 200', 'HTTP/1.1 502']);
        expect(posted).toMatch(/closed a kept-alive connection before answering/);
        // The GET may first meet the target connection the exchanges above left idle (kept for the
        // next client connection) as it closes, and go again: the POST goes once, and last.
        expect(
          seen.filter((head) => head.startsWith('POST')),
          close,
        ).toEqual(['POST /v2/checkout/abc']);
        expect(seen.at(-1), close).toBe('POST /v2/checkout/abc');
      });
    }
  });

  it('refuses a request with two Host fields, or an HTTP/1.1 one with none, and forwards HTTP/1.0 without', async () => {
    const setup = await proxiedService();
    try {
      const two = await raw(setup.proxy.url, 'GET /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.test\r\n\r\n');
      expect(two).toMatch(/^HTTP\/1\.1 400 [\s\S]*a request needs exactly one Host/);
      const none = await raw(setup.proxy.url, 'GET /orders HTTP/1.1\r\nAccept: application/json\r\n\r\n');
      expect(none).toMatch(/^HTTP\/1\.1 400 [\s\S]*a request needs exactly one Host/);
      const old = await raw(setup.proxy.url, 'GET /checkout/none HTTP/1.0\r\nAccept: application/json\r\n\r\n');
      expect(old).toMatch(/^HTTP\/1\.1 404 /);
    } finally {
      await setup.dispose();
    }
  });

  it("keeps a target connection for the next request only as long as the target's Keep-Alive hint allows", async () => {
    for (const hint of ['', 'keep-alive: timeout=1\r\n']) {
      let connections = 0;
      const target = createNetServer((socket) => {
        connections += 1;
        socket.on('data', (chunk) => {
          for (const _ of chunk.toString('latin1').match(/^GET /gm) ?? [])
            socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${hint}content-length: 2\r\n\r\n{}`);
        });
        socket.on('error', () => {});
      });
      await throughProxyTo(target, async (proxy) => {
        expect((await raw(proxy.url, TWO_GETS)).match(/HTTP\/1\.1 200/g), hint).toHaveLength(2);
        // A hint of one second, less the second the proxy keeps in hand, leaves nothing to reuse.
        expect(connections, hint).toBe(hint ? 2 : 1);
      });
    }
  });

  it('refuses Host names that are not its own, so a web page cannot reach the target through it', async () => {
    const setup = await proxiedService({ proxy: { allowedHosts: ['conformance.example.test'] } });
    try {
      const port = new URL(setup.proxy.url).port;
      const url = await checkoutUrl(setup.proxy.url);
      const path = new URL(url).pathname;
      const get = (host: string) =>
        raw(
          setup.proxy.url,
          `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`,
        );
      const refused = await get(`rebinding.example.test:${port}`);
      expect(refused).toMatch(/^HTTP\/1\.1 403/);
      expect(refused).toContain('--allowed-host');
      // Not a host[:port] at all: nothing of it may end up in rewritten URLs.
      expect(await get('a.test"},"injected":{"x":"')).toMatch(/^HTTP\/1\.1 (400|403)/);
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `conformance.example.test:${port}`]) {
        const answer = await get(host);
        expect(answer).toMatch(/^HTTP\/1\.1 200/);
        // URLs of the target come back rewritten to the name the client used.
        expect(answer).toContain(`"paymentUrl": "http://${host}/`);
      }
      // Only the three allowed requests reached the target.
      const reads = (await setup.recorded()).filter((e) => e.request.method === 'GET' && e.request.url.endsWith(path));
      expect(reads).toHaveLength(3);
      expect(setup.log.filter((line) => line.startsWith('refused a request for Host'))).toHaveLength(2);
    } finally {
      await setup.dispose();
    }
  });

  it('answers any Host name when told --allowed-host all, and names under a leading dot', async () => {
    const target = await capturingTarget(200, 'application/json', '{}');
    const proxies = [
      await startProxy({ target: target.url, allowedHosts: ['all'] }),
      await startProxy({ target: target.url, allowedHosts: ['.corp.test'] }),
    ];
    try {
      const get = (url: string, host: string) =>
        raw(url, `GET /checkout/x HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(await get(proxies[0]?.url ?? '', 'anything.example')).toMatch(/^HTTP\/1\.1 200/);
      expect(await get(proxies[1]?.url ?? '', 'dev.corp.test:8080')).toMatch(/^HTTP\/1\.1 200/);
      expect(await get(proxies[1]?.url ?? '', 'corp.test.evil:8080')).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      for (const proxy of proxies) await proxy.close();
      await target.close();
    }
  });

  it('keeps serving with 200 silent connections open, and cuts silent clients off after the client timeout', async () => {
    const setup = await proxiedService({ proxy: { clientTimeoutMs: 600 } });
    const sockets: Socket[] = [];
    try {
      const url = await checkoutUrl(setup.proxy.url);
      for (let index = 0; index < 200; index += 1)
        sockets.push(await silent(setup.proxy.url, index % 2 ? '' : 'GET /v2/orders HTTP/1.1\r\nHo'));
      const answer = await request(url, { headers: { accept: 'application/json' } });
      expect(answer.statusCode).toBe(200);
      await answer.body.text();
      await Promise.all(sockets.map((socket) => (socket.closed ? undefined : once(socket, 'close'))));
      expect(sockets.every((socket) => socket.destroyed)).toBe(true);

      // A body that stops coming: cut off and recorded as failed, not held open.
      const path = new URL(url).pathname;
      const stalled = await silent(
        setup.proxy.url,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"ret`,
      );
      await once(stalled, 'close');
      const recorded = await setup.recorded();
      expect(recorded.at(-1)?.error).toBe('the client sent nothing for 0.6 s');
    } finally {
      for (const socket of sockets) socket.destroy();
      await setup.dispose();
    }
  });

  it('stops within its stop timeout while an upload is held open, and records that exchange', async () => {
    const setup = await proxiedService({ proxy: { stopTimeoutMs: 300, clientTimeoutMs: 0 } });
    try {
      const order = (await (await request(`${setup.proxy.url}orders`, { method: 'POST' })).body.json()) as {
        items: { files: { content: { uploadUrl: string } } }[];
      };
      const path = new URL(order.items[0]?.files.content.uploadUrl ?? '').pathname;
      const held = await silent(
        setup.proxy.url,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/pdf\r\nContent-Length: 1000000\r\n\r\n%PDF-1.7\n`,
      );
      const cutOff = once(held, 'close');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const recorded = await setup.recorded();
      await cutOff;
      expect(recorded.at(-1)?.error).toBe('the proxy stopped before the exchange completed');
    } finally {
      await setup.dispose();
    }
  });
});
