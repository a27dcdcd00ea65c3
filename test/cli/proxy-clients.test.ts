import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';
import { onPath } from '../helpers/peers.js';
import { CLIENTS, startStandIn } from '../helpers/stand-in-service.js';

// Many client teams through one proxy (--clients-by oauth): two clients with their own credentials,
// one conformant and one building a checkout URL of its own (client.given-urls), and a third whose
// token was obtained before the proxy saw it. Each gets its own verdict in every report, on the page
// and from validate of the recording; no secret or token shows anywhere.

const GOOD = { id: 'shop-good', secret: 'good-secret-7f3a9c1e5b' };
const BAD = { id: 'shop-bad', secret: 'bad-secret-2d8e4b6a0f' };
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-proxy-clients-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

async function token(base: string, client: { id: string; secret: string }): Promise<string> {
  const answer = await fetch(`${base}oauth`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret }),
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

/** An order and its checkout: at the URL the order gave, or (`own`) at one the client built itself. */
async function checkout(base: string, bearer: string, own = false): Promise<void> {
  const headers = { ...JSON_HEADERS, authorization: `Bearer ${bearer}` };
  const order = (await (await fetch(`${base}orders`, { method: 'POST', headers })).json()) as {
    id: string;
    checkout: { setupUrl: string };
  };
  const url = own ? `${base}checkout/${order.id}` : order.checkout.setupUrl;
  await (await fetch(url, { method: 'POST', headers, body: checkoutRequestJson() })).text();
}

/** Every file under a folder, as text. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

interface ClientShown {
  client: string;
  passed: boolean;
  judged: number;
  failed: { rule: string }[];
}

const verdictOf = (clients: ClientShown[], id: string) => {
  const found = clients.find((c) => c.client === id);
  return found && { passed: found.passed, failed: found.failed.map((f) => f.rule) };
};

describe('proxy --clients-by oauth', () => {
  it('gives each client its own verdict in every report, on the page and from validate, and shows no secret', async () => {
    const reports = join(folder, 'reports');
    const recording = join(folder, 'traffic.ndjson');
    const summary = join(folder, 'summary.md');
    const sarif = join(folder, 'results.sarif');
    // Obtained from the service itself, before the proxy could see it: its client cannot be told.
    const early = await token(service.baseUrl, { id: 'shop-early', secret: 'early-secret-9c1e5b7f3a' });
    const proxy = await startListeningCli([
      'proxy',
      '--target',
      service.baseUrl,
      '--clients-by',
      'oauth',
      '--format',
      'json',
      '--skip',
      'upload.',
      '--summary-interval',
      '0',
      '--record',
      recording,
      '--har',
      join(folder, 'traffic.har'),
      '--report-dir',
      reports,
      '--summary-md',
      summary,
      '--sarif',
      sarif,
    ]);
    const secrets = [GOOD.secret, BAD.secret, 'early-secret-9c1e5b7f3a', early];
    const shown: string[] = [];
    try {
      const good = await token(proxy.url, GOOD);
      const bad = await token(proxy.url, BAD);
      secrets.push(good, bad);
      await checkout(proxy.url, good);
      await checkout(proxy.url, bad, true);
      await checkout(proxy.url, early);

      const api = `${proxy.url}__print-conformance/`;
      const listed = await (await fetch(`${api}api/clients`)).text();
      shown.push(listed);
      const clients = (JSON.parse(listed) as { clients: ClientShown[] }).clients;
      expect(clients.map((c) => c.client).sort()).toEqual(['shop-bad', 'shop-good', 'unknown']);
      expect(verdictOf(clients, 'shop-good')).toEqual({ passed: true, failed: [] });
      expect(verdictOf(clients, 'shop-bad')?.failed).toContain('client.given-urls');
      expect(verdictOf(clients, 'shop-bad')?.passed).toBe(false);
      // The early token's exchanges are no one's: never counted to a client that was seen.
      expect(verdictOf(clients, 'unknown')?.failed).not.toContain('client.given-urls');

      const one = await fetch(`${api}api/verdicts?client=shop-bad`);
      const oneText = await one.text();
      shown.push(oneText);
      expect((JSON.parse(oneText) as ClientShown).failed.map((f) => f.rule)).toContain('client.given-urls');
      expect((await fetch(`${api}api/verdicts?client=nobody`)).status).toBe(404);

      // The live page: each client's verdict at the top, a client filter, the filter applied.
      const page = await (await fetch(api)).text();
      const filtered = await (await fetch(`${api}?client=shop-good`)).text();
      shown.push(page, filtered, await (await fetch(`${api}api/exchanges`)).text());
      expect(page).toMatch(/<select name="client">.*shop-bad.*<\/select>/s);
      expect(page).toMatch(/class="bad" data-client="shop-bad">✗ client shop-bad \(\d+\): [^<]*client\.given-urls/);
      expect(page).toMatch(/class="good" data-client="shop-good">✓ client shop-good/);
      expect(filtered).toMatch(/<option value="shop-good" selected>/);
      // Only the good client's exchanges are listed: none of them broke a rule.
      expect(/<tbody>(.*)<\/tbody>/s.exec(filtered)?.[1]).toMatch(/<tr/);
      expect(/<tbody>(.*)<\/tbody>/s.exec(filtered)?.[1]).not.toMatch(/client\.given-urls/);
      expect(/<tbody>(.*)<\/tbody>/s.exec(page)?.[1]).toMatch(/client\.given-urls/);
    } finally {
      const stopped = await proxy.stop();
      shown.push(stopped.stdout, stopped.stderr);
      expect(stopped.stdout).toMatch(/Clients \(by oauth\): 3, 1 broke a rule/);
      expect(stopped.stdout).toMatch(/✗ shop-bad: .*client\.given-urls/);
      expect(stopped.stdout).toMatch(/✓ shop-good: /);
    }

    const results = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as {
      clients: { by: string; clients: ClientShown[] };
    };
    expect(results.clients.by).toBe('oauth');
    expect(verdictOf(results.clients.clients, 'shop-good')).toEqual({ passed: true, failed: [] });
    expect(verdictOf(results.clients.clients, 'shop-bad')?.failed).toContain('client.given-urls');
    const junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite name="client shop-good"[^>]* failures="0"/);
    expect(junit).toMatch(/<testsuite name="client shop-bad"[^>]* failures="[1-9]/);
    expect(junit).toMatch(/classname="client\.shop-bad" name="client\.given-urls"/);
    expect(readFileSync(summary, 'utf8')).toMatch(/✗ \| shop-bad \| .*client\.given-urls/);
    const allure = allText(join(reports, 'allure-results'));
    expect(allure).toContain('"name":"client shop-bad"');

    // Every line of the recording names its client; validate splits the recording the same way.
    const lines = readFileSync(recording, 'utf8').trim().split('\n');
    const named = lines.map((line) => (JSON.parse(line) as { client?: string }).client);
    expect(new Set(named)).toEqual(new Set(['shop-good', 'shop-bad', 'unknown']));
    const offline = join(folder, 'offline.json');
    const validated = await runCli([
      'validate',
      recording,
      '--clients-by',
      'oauth',
      '--format',
      'json',
      '--skip',
      'upload.',
      '--json-report',
      offline,
      '--junit',
      join(folder, 'offline.xml'),
    ]);
    shown.push(validated.stdout, validated.stderr);
    const again = JSON.parse(readFileSync(offline, 'utf8')) as { clients: { by: string; clients: ClientShown[] } };
    for (const id of ['shop-good', 'shop-bad', 'unknown'])
      expect(verdictOf(again.clients.clients, id)).toEqual(verdictOf(results.clients.clients, id));
    expect(readFileSync(join(folder, 'offline.xml'), 'utf8')).toMatch(/<testsuite name="client shop-bad"/);
    // A recording made without --clients-by names no client: validate says so, under --quiet too.
    const unnamed = join(folder, 'unnamed.ndjson');
    writeFileSync(
      unnamed,
      `${lines.map((line) => JSON.stringify({ ...JSON.parse(line), client: undefined })).join('\n')}\n`,
    );
    const quiet = await runCli([
      'validate',
      unnamed,
      '--clients-by',
      'oauth',
      '--quiet',
      '--report-dir',
      join(folder, 'q'),
    ]);
    expect(quiet.stderr).toContain('warning: no exchange of these recordings names its client');
    // The HAR names each entry's client too.
    const fromHar = join(folder, 'from-har.json');
    await runCli([
      'validate',
      join(folder, 'traffic.har'),
      '--clients-by',
      'oauth',
      '--format',
      'json',
      '--skip',
      'upload.',
      '--json-report',
      fromHar,
    ]);
    const harSplit = JSON.parse(readFileSync(fromHar, 'utf8')) as { clients: { clients: ClientShown[] } };
    for (const id of ['shop-good', 'shop-bad', 'unknown'])
      expect(verdictOf(harSplit.clients.clients, id)).toEqual(verdictOf(results.clients.clients, id));

    // No secret and no token anywhere: reports, recording, page, API answers, console.
    const everything = [allText(folder), ...shown].join('\n');
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });

  it('serve --clients-by oauth tells the clients of the tokens it hands out apart', async () => {
    const serve = await startListeningCli(['serve', '--port', '0', '--clients-by', 'oauth']);
    try {
      const good = await token(serve.url, GOOD);
      const bad = await token(serve.url, BAD);
      await checkout(serve.url, good);
      await checkout(serve.url, bad, true);
      const base = new URL(serve.url);
      const listed = await (await fetch(`${base.origin}/__print-conformance/api/clients`)).text();
      const clients = (JSON.parse(listed) as { clients: ClientShown[] }).clients;
      expect(verdictOf(clients, 'shop-good')).toEqual({ passed: true, failed: [] });
      expect(verdictOf(clients, 'shop-bad')?.failed).toContain('client.given-urls');
      for (const secret of [GOOD.secret, BAD.secret, good, bad]) expect(listed).not.toContain(secret);
    } finally {
      await serve.stop();
    }
  });

  it('by a print-conformance- header: the header names the client and is never forwarded or recorded', async () => {
    const recording = join(folder, 'by-header.ndjson');
    const proxy = await startListeningCli([
      'proxy',
      '--target',
      service.baseUrl,
      '--clients-by',
      'header:print-conformance-client',
      '--summary-interval',
      '0',
      '--record',
      recording,
      '--report-dir',
      join(folder, 'by-header'),
    ]);
    try {
      const headers = { ...JSON_HEADERS, 'print-conformance-client': 'team-blue' };
      const order = (await (await fetch(`${proxy.url}orders`, { method: 'POST', headers })).json()) as { id: string };
      await (await fetch(`${proxy.url}orders/${order.id}`, { headers: JSON_HEADERS })).text();
      const clients = (
        (await (await fetch(`${proxy.url}__print-conformance/api/clients`)).json()) as {
          clients: ClientShown[];
        }
      ).clients;
      expect(clients.map((c) => c.client)).toEqual(['team-blue', 'unknown']);
    } finally {
      await proxy.stop();
    }
    const lines = readFileSync(recording, 'utf8').trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { client?: string }).client)).toEqual(['team-blue', 'unknown']);
    expect(readFileSync(recording, 'utf8')).not.toContain('print-conformance-client');
  });

  it('refuses a --clients-by it does not know, in one line', async () => {
    const result = await runCli(['proxy', '--target', service.baseUrl, '--clients-by', 'cookie']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--clients-by takes oauth, basic, header:NAME .* or none, not "cookie"/);
  });
});

describe.skipIf(!onPath('curl'))('proxy --clients-by oauth, intercepting (HTTPS_PROXY)', () => {
  it('names the client of an unmodified client whose code holds the real host', async () => {
    const standIn = await startStandIn();
    try {
      const session = await standIn.behindProxy(['sh', join(CLIENTS, 'shop.sh'), 'built-urls'], 'clients', {}, [
        '--clients-by',
        'oauth',
      ]);
      // Every intercepted exchange is the client's: its token was handed out through the proxy.
      expect(new Set(session.recording.map((exchange) => (exchange as { client?: string }).client))).toEqual(
        new Set(['shop']),
      );
      const clients = (session.results as { clients?: { clients: ClientShown[] } }).clients?.clients ?? [];
      expect(verdictOf(clients, 'shop')?.failed).toContain('client.given-urls');
      expect(JSON.stringify(session)).not.toContain('shop-secret-value');
    } finally {
      await standIn.close();
    }
  });
});
