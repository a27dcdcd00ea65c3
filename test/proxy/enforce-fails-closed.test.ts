import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProxyOptions } from '../../proxy/proxy-server.js';
import type { RecordedExchange } from '../../proxy/recorder.js';
import { openConnection, rawExchange, throughProxyTo } from '../helpers/raw-http.js';

// Enforce mode is a gate: a request that breaks a must rule never reaches the target. A gate that
// cannot read a body cannot tell, so it refuses it rather than let it through unjudged: 413 for a
// body past --validate-limit, 415 for a content coding it cannot decode, 503 when the memory
// budget cannot hold it now.

/** A checkout request whose ReturnUrl is 513 characters long: it breaks checkout.return-url.length. */
const BREAKING = JSON.stringify({ returnUrl: `https://e.test/?${'a'.repeat(497)}` });

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-gate-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** A target that counts what reaches it. */
function countingTarget() {
  const reached: string[] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    for await (const _ of request);
    reached.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return { server, reached };
}

async function enforced(
  use: (url: string) => Promise<void>,
  options: Partial<ProxyOptions> = {},
): Promise<{ reached: string[]; recorded: RecordedExchange[] }> {
  const { server, reached } = countingTarget();
  const recordFile = join(folder, 't.ndjson');
  await throughProxyTo(server, (proxy) => use(proxy.url), { mode: 'enforce', recordFile, ...options });
  const recorded = readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RecordedExchange);
  return { reached, recorded };
}

async function post(url: string, body: Buffer | string, headers: Record<string, string>) {
  const answer = await fetch(`${url}checkout/abc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return { status: answer.status, headers: answer.headers, text: await answer.text() };
}

describe('enforce mode fails closed', () => {
  it('blocks a breaking request, as before', async () => {
    const { reached } = await enforced(async (url) => {
      expect((await post(url, BREAKING, {})).status).toBe(400);
    });
    expect(reached).toEqual([]);
  });

  it('refuses a body padded with white space past --validate-limit with 413, and closes', async () => {
    const padded = `${BREAKING}${' '.repeat(64 * 1024)}`;
    const { reached, recorded } = await enforced(
      async (url) => {
        const answer = await rawExchange(
          url,
          `POST /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${padded.length}\r\n\r\n${padded}`,
        );
        expect(answer).toMatch(/^HTTP\/1\.1 413 /);
        expect(answer).toMatch(/connection: close/i);
        expect(answer).toContain('--validate-limit');
      },
      { validateLimit: 16 * 1024 },
    );
    expect(reached).toEqual([]);
    expect(recorded.map((e) => e.proxyStatus)).toEqual([413]);
  });

  it('reads raw deflate, as ASP.NET Core does, and blocks what it reads', async () => {
    const { reached } = await enforced(async (url) => {
      const answer = await post(url, deflateRawSync(BREAKING), { 'content-encoding': 'deflate' });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('checkout.return-url.length');
    });
    expect(reached).toEqual([]);
  });

  it('reads codings applied twice ("gzip, gzip"), and blocks what it reads', async () => {
    const { reached } = await enforced(async (url) => {
      const answer = await post(url, gzipSync(gzipSync(BREAKING)), { 'content-encoding': 'gzip, gzip' });
      expect(answer.status).toBe(400);
    });
    expect(reached).toEqual([]);
  });

  it('refuses a content coding it cannot decode (zstd) with 415', async () => {
    const { reached, recorded } = await enforced(async (url) => {
      const answer = await post(url, Buffer.from('(\xb5/\xfd not really zstd', 'latin1'), {
        'content-encoding': 'zstd',
      });
      expect(answer.status).toBe(415);
      expect(answer.text).toContain('zstd');
    });
    expect(reached).toEqual([]);
    expect(recorded.map((e) => e.proxyStatus)).toEqual([415]);
  });

  it('refuses a body the memory budget cannot hold now with 503 and Retry-After', async () => {
    const { reached } = await enforced(
      async (url) => {
        const answer = await post(url, BREAKING, {});
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('1');
        expect(answer.text).toContain('--memory-budget');
      },
      { memoryBudget: 256 },
    );
    expect(reached).toEqual([]);
  });

  it('judges an upload that names no Content-Type by its start before it forwards it', async () => {
    const { reached } = await enforced(async (url) => {
      const answer = await fetch(`${url}files/abc`, {
        method: 'POST',
        body: new Blob([Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(200_000, 0x25)])]),
      });
      await answer.text();
      expect(answer.status).toBe(415);
    });
    expect(reached).toEqual([]);
  });

  it('judges an upload of a binary type, and a request without a body, by its head before it forwards it', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(200_000, 0x25)]);
    const upload = async (url: string, path: string, type: string) => {
      const answer = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': type, accept: 'application/json' },
        body: new Uint8Array(pdf),
      });
      return {
        status: answer.status,
        violations: answer.headers.get('print-conformance-violations'),
        text: await answer.text(),
      };
    };
    const { reached, recorded } = await enforced(async (url) => {
      for (const type of ['application/octet-stream', 'image/gif', 'application/x-pdf'])
        expect(await upload(url, 'files/abc', type), type).toMatchObject({
          status: 415,
          violations: expect.stringContaining('upload.content-type'),
        });
      // A URL the client built (no code): client.given-urls, with or without a body.
      expect(await upload(url, 'files/abc/content', 'application/pdf')).toMatchObject({
        status: 400,
        violations: expect.stringContaining('client.given-urls'),
      });
      const built = await fetch(`${url}checkout`, { headers: { accept: 'application/json' } });
      await built.text();
      expect(built.status).toBe(400);
      // A fine upload is forwarded whole, without being held.
      expect((await upload(url, 'files/abc', 'application/pdf')).status).toBe(200);
    });
    expect(reached).toEqual(['POST /v2/files/abc']);
    expect(recorded.filter((exchange) => exchange.blocked)).toHaveLength(5);
  });

  it('judges a body sent in one-byte chunks whole, and forwards a fine one', async () => {
    const fine = JSON.stringify({ returnUrl: 'https://shop.example.test/back' });
    const chunked = [...fine].map((char) => `1\r\n${char}\r\n`).join('');
    const { reached, recorded } = await enforced(async (url) => {
      const answer = await rawExchange(
        url,
        `POST /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked}0\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    });
    expect(reached).toEqual(['POST /v2/checkout/abc']);
    expect(recorded[0]?.request.body?.text).toBe(fine);
  });

  it('answers no 100 Continue to an HTTP/1.0 client', async () => {
    await enforced(async (url) => {
      const { socket, received } = await openConnection(url);
      socket.write(
        `POST /checkout/abc HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${BREAKING.length}\r\n\r\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received()).toBe('');
      socket.write(BREAKING);
      await once(socket, 'close');
      expect(received()).toMatch(/^HTTP\/1\.1 400 /);
    });
  });
});
