import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayRecordings } from '../../src/replay/replay-session.js';
import { ReplayMap, underTarget } from '../../src/replay/url-map.js';

// A replay sends the user's credentials to --target alone: a recorded path with an empty or dot
// segment never leaves the target's base, and a URL the new order gives on another host is sent
// without them.

const OLD = 'http://old.test/v2/';
const TARGET = 'http://new.test/v2/';

describe('where a rebased URL may go', () => {
  it('refuses empty and dot segments that would leave the base or the host', () => {
    const map = new ReplayMap(TARGET);
    expect(map.rebased(`${OLD}//orders`, OLD)).toHaveProperty('reason');
    expect(map.rebased(`${OLD}///orders`, OLD)).toHaveProperty('reason');
    expect(map.rebased(`${OLD}///checkout/abc`, OLD)).toHaveProperty('reason');
    expect(map.rebased(`${OLD}x/%2e%2e/%2e%2e/orders`, OLD)).toHaveProperty('reason');
    expect(map.rebased(`${OLD}orders`, OLD)).toEqual({ url: `${TARGET}orders` });
  });

  it('counts only the target origin under its base path as the target', () => {
    expect(underTarget(`${TARGET}orders`, TARGET)).toBe(true);
    expect(underTarget('http://new.test/orders', TARGET)).toBe(false);
    expect(underTarget('http://orders/', TARGET)).toBe(false);
    expect(underTarget('http://new.test:81/v2/orders', TARGET)).toBe(false);
    expect(underTarget('http://new.test/v2//orders', TARGET)).toBe(false);
  });
});

interface Seen {
  path: string;
  authorization?: string;
}

function listen(
  handler: (path: string, headers: IncomingHttpHeaders, answer: (status: number, body?: unknown) => void) => void,
) {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () =>
      handler(request.url ?? '', request.headers, (status, body) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(body === undefined ? '' : JSON.stringify(body));
      }),
    );
  });
  return new Promise<Server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

describe('a replay session against a target and another host', () => {
  let folder: string;
  let target: Server;
  let elsewhere: Server;
  const atTarget: Seen[] = [];
  const atElsewhere: Seen[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'replay-destinations-'));
    elsewhere = await listen((path, headers, answer) => {
      atElsewhere.push({ path, ...(headers.authorization ? { authorization: headers.authorization } : {}) });
      answer(404);
    });
    target = await listen((path, headers, answer) => {
      atTarget.push({ path, ...(headers.authorization ? { authorization: headers.authorization } : {}) });
      if (path === '/v2/orders')
        answer(201, { id: 'N1', checkout: { setupUrl: `${urlOf(elsewhere)}/v2/checkout/NEW1` } });
      else answer(404);
    });
  });

  afterAll(() => {
    target.close();
    elsewhere.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('sends nothing outside the base, and no credentials to a host the new order names', async () => {
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    const exchange = (method: string, url: string, status: number, body?: unknown, answer?: unknown) => ({
      request: {
        method,
        url,
        headers: json,
        ...(body === undefined ? {} : { body: { size: JSON.stringify(body).length, text: JSON.stringify(body) } }),
      },
      response: {
        status,
        headers: { 'content-type': 'application/json' },
        ...(answer === undefined
          ? {}
          : { body: { size: JSON.stringify(answer).length, text: JSON.stringify(answer) } }),
      },
    });
    const order = { id: 'O1', checkout: { setupUrl: `${OLD}checkout/OLD1` } };
    const checkout = { billing: { address: { name: 'A' } } };
    const lines = [
      exchange('POST', `${OLD}orders`, 201, { items: [] }, order),
      exchange('POST', `${OLD}//orders`, 201, { items: [] }, order),
      exchange('POST', `${OLD}///orders`, 201, { items: [] }, order),
      exchange('POST', `${OLD}checkout/OLD1`, 200, checkout, {}),
    ];
    const file = join(folder, 'session.ndjson');
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const outcome = await replayRecordings([file], {
      target: `${urlOf(target)}/v2/`,
      credentials: { authorization: 'Bearer user-secret' },
      timeoutMs: 5000,
      recordedBase: OLD,
    });
    expect(atTarget.map((seen) => seen.path)).toEqual(['/v2/orders']);
    expect(atTarget[0]?.authorization).toBe('Bearer user-secret');
    expect(atElsewhere).toEqual([{ path: '/v2/checkout/NEW1' }]);
    const unsent = outcome.replay.exchanges.filter((entry) => entry.notReplayed !== undefined);
    expect(unsent.map((entry) => entry.recordedUrl)).toEqual([`${OLD}//orders`, `${OLD}///orders`]);
  });
});
