import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProxyHandle, startProxy } from '../../proxy/proxy-server.js';
import type { FeedEntry } from '../../src/control/exchange-feed.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { openConnection } from '../helpers/raw-http.js';

// A service may answer before it has read a request's body (a 401 to an expired token, a 404 to a
// stale code), and many clients write the body after the head (h11, the JDK's HttpURLConnection).
// The request is judged on the body the client sent, once it has all come, whoever answers: the
// proxy in front of the service, and serve itself. A body the client never finishes is judged by
// no body rule, never failed.

const TOKEN = 'whole-request-token';
const BODY = JSON.stringify({
  returnUrl: 'https://shop.example.test/back',
  billing: {
    address: {
      firstName: 'Ann',
      lastName: 'Lee',
      street: 'Main 1',
      postalCode: '1000 AA',
      city: 'Amsterdam',
      country: 'NL',
    },
  },
});
const TRIES = 20;

let service: ReferenceService;
let proxy: ProxyHandle;
/** A checkout's path under the base, as given by an order, and one with a code the service does not know. */
let given: string;
let unknown: string;

beforeAll(async () => {
  service = await startReferenceService({ token: TOKEN, control: {} });
  proxy = await startProxy({ target: service.baseUrl, log: () => {} });
  // Ordered through the proxy, so that it knows the URLs the order gives.
  const order = (await (
    await fetch(`${proxy.url}orders`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })
  ).json()) as { checkout: { setupUrl: string } };
  given = order.checkout.setupUrl.slice(proxy.url.length);
  unknown = given.replace(/[^/]+$/, 'nosuchcode');
});

afterAll(async () => {
  await proxy?.close();
  await service?.close();
});

/** Until `received` holds `count` whole answers (bodies framed by Content-Length). */
async function answers(socket: import('node:net').Socket, received: () => string, count: number): Promise<void> {
  const whole = () => {
    let text = received();
    let seen = 0;
    for (;;) {
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return seen;
      const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length < end + 4 + length) return seen;
      seen += 1;
      text = text.slice(end + 4 + length);
    }
  };
  while (whole() < count) {
    if (socket.destroyed) throw new Error(`the connection closed after ${whole()} answers: ${received()}`);
    await once(socket, 'data');
  }
}

function head(base: string, path: string, auth: boolean, length = Buffer.byteLength(BODY)): string {
  const url = new URL(path, base);
  return (
    `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json\r\n` +
    `${auth ? `Authorization: Bearer ${TOKEN}\r\n` : ''}Content-Length: ${length}\r\n\r\n`
  );
}

/** The findings held against the client, less the hand-built URL a 404 for an unknown code is about. */
function requestFindings(entries: FeedEntry[]): string[] {
  return entries.flatMap((entry) =>
    entry.violations
      .filter((v) => v.side === 'request' && v.severity !== 'observe' && v.rule !== 'client.given-urls')
      .map((v) => `${entry.method} ${entry.url} ${entry.status}: ${v.rule} ${v.message}`),
  );
}

/**
 * One try on one connection: a request answered before its body was sent (the answer is waited
 * for, then the body goes), a second such one on the same kept-alive connection, then two
 * pipelined in one write behind it. Four exchanges.
 */
async function tryOnce(base: string, path: string, auth: boolean): Promise<void> {
  const { socket, received } = await openConnection(base);
  try {
    for (let round = 1; round <= 2; round += 1) {
      socket.write(head(base, path, auth));
      await answers(socket, received, round);
      socket.write(BODY);
    }
    socket.write(head(base, path, auth) + BODY + head(base, path, auth) + BODY);
    await answers(socket, received, 4);
  } finally {
    socket.destroy();
  }
}

/** The judged exchanges of the proxy or serve at `base`, read through its control API. */
function feedOf(base: string) {
  const api = new URL('/__print-conformance/api/', base);
  const since = async (after: number) =>
    ((await (await fetch(new URL(`exchanges?after=${after}`, api))).json()) as { exchanges: FeedEntry[] }).exchanges;
  return {
    async last(): Promise<number> {
      return ((await (await fetch(new URL('exchanges', api))).json()) as { last: number }).last;
    },
    /** The entries after `from`, once `count` have come. */
    async after(from: number, count: number): Promise<FeedEntry[]> {
      const deadline = Date.now() + 10_000;
      let entries = await since(from);
      while (entries.length < count && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        entries = await since(from);
      }
      return entries;
    },
    async detail(seq: number): Promise<{ request: { text?: string; note?: string } }> {
      return (await fetch(new URL(`exchanges/${seq}`, api))).json() as Promise<{
        request: { text?: string; note?: string };
      }>;
    },
  };
}

describe('a request answered before its body came', () => {
  const cases = [
    { name: '401 (no token)', url: () => given, auth: false, status: 401 },
    { name: '404 (an unknown code)', url: () => unknown, auth: true, status: 404 },
  ];
  for (const { name, url, auth, status } of cases) {
    it(`is judged on its whole body, by the proxy and by serve: ${name}, ${TRIES} tries`, async () => {
      for (const [who, base] of [
        ['proxy', proxy.url],
        ['serve', service.baseUrl],
      ] as const) {
        const feed = feedOf(base);
        const from = await feed.last();
        for (let attempt = 0; attempt < TRIES; attempt += 1) await tryOnce(base, url(), auth);
        const entries = await feed.after(from, 4 * TRIES);
        expect(
          entries.map((entry) => entry.status),
          who,
        ).toEqual(Array(4 * TRIES).fill(status));
        expect(requestFindings(entries), who).toEqual([]);
      }
    });
  }

  it('records the body as the client sent it', async () => {
    const feed = feedOf(proxy.url);
    const from = await feed.last();
    await tryOnce(proxy.url, given, false);
    const entries = await feed.after(from, 4);
    for (const entry of entries) expect((await feed.detail(entry.seq)).request.text).toBe(BODY);
  });

  it('leaves a body the client never finished untested, not failed', async () => {
    // Answered early (no token) or not answered at all (the service reads the body first): serve
    // judges only what it answered, so it has the first case alone.
    for (const [base, cases] of [
      [proxy.url, [false, true]],
      [service.baseUrl, [false]],
    ] as const) {
      const feed = feedOf(base);
      for (const auth of cases) {
        const from = await feed.last();
        const { socket, received } = await openConnection(base);
        socket.write(head(base, given, auth, 100));
        if (!auth) await answers(socket, received, 1);
        socket.end(BODY.slice(0, 40));
        await once(socket, 'close');
        const entries = await feed.after(from, 1);
        expect(entries, `${base} auth=${auth}`).toHaveLength(1);
        expect(requestFindings(entries), `${base} auth=${auth}`).toEqual([]);
        const shown = (await feed.detail((entries[0] as FeedEntry).seq)).request;
        expect(shown.text).toBeUndefined();
        expect(shown.note).toMatch(/did not finish/);
      }
    }
  });
});
