import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli, startListeningCli } from '../helpers/cli.js';

// Secrets planted in every spelling a client, a service or a browser writes them, in traffic
// through the proxy and in a browser's HAR given to validate. Every artefact (NDJSON, HAR,
// results.json, junit.xml, Allure results) and everything printed is searched for each of them.
// Every answer is a 500, so that every exchange breaks a rule and is shown in the reports.

const secret = (n: number) => `PLANTED${String(n).padStart(2, '0')}x9Qv`;
const deep = (depth: number, inner: string) => `{"a":${'['.repeat(depth)}${inner}${']'.repeat(depth)}}`;

/** What the service answers, by the last segment of the path. */
const ANSWERS: Record<string, { type: string; headers?: Record<string, string>; body: string }> = {
  json: {
    type: 'application/json',
    headers: {
      location: `https://app.test/cb?code=${secret(21)}#access_token=${secret(22)}`,
      'set-cookie': `sid=${secret(25)}; HttpOnly`,
      'x-auth-token': secret(26),
    },
    body: `{"access_token":"${secret(23)}","refresh_token":"${secret(24)}"}\n{"trailing":true}`,
  },
  xml: { type: 'application/xml', body: `<Error><ClientSecret>${secret(27)}</ClientSecret></Error>` },
  deep: { type: 'application/json', body: deep(50_000, `{"accessToken":"${secret(28)}"}`) },
};

/** A browser's HAR: credentials as sent and received, nothing filtered. */
function browserHar(): string {
  const entry = (request: object, response: object) => ({
    startedDateTime: '2026-11-23T10:00:00.000Z',
    time: 12,
    request: { httpVersion: 'HTTP/1.1', cookies: [], headersSize: -1, bodySize: -1, ...request },
    response: {
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      ...response,
    },
    cache: {},
    timings: { send: 0, wait: 12, receive: 0 },
  });
  const base = 'https://api.example.test/v2/checkout/5L2zKMnOqp6A15GoP909Z';
  const entries = [
    entry(
      {
        method: 'POST',
        url: `${base}?access%5Ftoken=${secret(32)}&code=${secret(33)}`,
        headers: [
          { name: 'X-Auth-Token', value: secret(30) },
          { name: 'Cookie', value: `session=${secret(31)}` },
          { name: 'Referer', value: `https://shop.test/pay?code=${secret(37)}` },
          { name: 'X-Amz-Security-Token', value: secret(43) },
          { name: 'Api-Key', value: secret(44) },
          { name: 'Content-Type', value: 'application/json' },
        ],
        queryString: [{ name: 'access_token', value: secret(32) }],
        postData: {
          mimeType: 'application/json',
          text: `{"clientSecret":"${secret(39)}","client\\u005fsecret":"${secret(40)}"}`,
        },
      },
      {
        status: 500,
        headers: [
          { name: 'Content-Type', value: 'application/json' },
          { name: 'Location', value: `https://app.test/cb#access_token=${secret(36)}` },
        ],
        content: { size: 40, mimeType: 'application/json', text: `{"access_token":"${secret(35)}"}` },
      },
    ),
    entry(
      {
        method: 'POST',
        url: base,
        headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }],
        postData: { mimeType: 'application/x-www-form-urlencoded', text: `grant_type=x&client_secret=${secret(34)}` },
      },
      {
        status: 500,
        headers: [{ name: 'Content-Type', value: 'application/xml' }],
        content: {
          size: 40,
          mimeType: 'application/xml',
          text: `<Token><AccessToken>${secret(38)}</AccessToken></Token>`,
        },
      },
    ),
    entry(
      { method: 'GET', url: base, headers: [] },
      {
        status: 500,
        headers: [{ name: 'Content-Type', value: 'application/json' }],
        content: { size: 40, mimeType: 'application/json', text: `{"access_token":"${secret(42)}"} and more` },
      },
    ),
    entry(
      { method: 'GET', url: base, headers: [] },
      {
        status: 500,
        headers: [{ name: 'Content-Type', value: 'application/json' }],
        content: { size: 40, mimeType: 'application/json', text: deep(50_000, `{"client_secret":"${secret(41)}"}`) },
      },
    ),
  ];
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'browser', version: '1' }, entries } });
}

let folder: string;
let service: Server;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-planted-'));
  service = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = ANSWERS[(req.url ?? '').split('?')[0]?.split('/').pop() ?? ''] ?? ANSWERS.json;
      res.writeHead(500, { 'content-type': answer?.type, ...answer?.headers });
      res.end(answer?.body);
    });
  });
  service.listen(0, '127.0.0.1');
  await once(service, 'listening');
});
afterAll(async () => {
  service.close();
  rmSync(folder, { recursive: true, force: true });
});

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('planted secrets', () => {
  it('appear in no recording, report or output of the proxy and of validate', async () => {
    const out = join(folder, 'out');
    mkdirSync(out);
    const at = (name: string) => join(out, name);
    const target = `http://127.0.0.1:${(service.address() as AddressInfo).port}/v2/`;
    const proxy = await startListeningCli([
      'proxy',
      '--target',
      target,
      '--record',
      at('traffic.ndjson'),
      '--har',
      at('traffic.har'),
    ]);
    const send = async (path: string, headers: Record<string, string>, body: string) => {
      const answer = await request(`${proxy.url}${path}`, { method: 'POST', headers, body });
      await answer.body.dump();
      expect(answer.statusCode).toBe(500);
    };
    await send(
      `checkout/json?access%5Ftoken=${secret(1)}&refresh_token=${secret(2)}&password=${secret(3)}&apikey=${secret(4)}&code=${secret(5)}&sig=${secret(6)}`,
      {
        'content-type': 'application/json',
        'x-auth-token': secret(7),
        'api-key': secret(8),
        'x-access-token': secret(9),
        'x-amz-security-token': secret(10),
        referer: `https://shop.test/cb#access_token=${secret(11)}`,
      },
      `{"clientSecret":"${secret(12)}","client\\u005fsecret":"${secret(13)}","token":"${secret(14)}","apiKey":"${secret(15)}","accessToken":"${secret(16)}"}`,
    );
    await send(
      'checkout/xml',
      { 'content-type': 'application/xml' },
      `<Checkout><AccessToken>${secret(17)}</AccessToken><ClientSecret>${secret(18)}</ClientSecret></Checkout>`,
    );
    await send(
      'checkout/deep',
      { 'content-type': 'application/json' },
      deep(50_000, `{"client_secret":"${secret(19)}"}`),
    );
    await send('checkout/json', { 'content-type': 'application/json' }, `{"access_token":"${secret(20)}"} trailing`);
    const outputs: CliResult[] = [await proxy.stop()];

    const input = join(folder, 'browser.har');
    writeFileSync(input, browserHar());
    for (const [file, dir] of [
      [at('traffic.ndjson'), 'validate-ndjson'],
      [at('traffic.har'), 'validate-har'],
      [input, 'validate-browser'],
    ] as const)
      outputs.push(await runCli(['validate', file, '--report-dir', at(dir), '--reporter', 'github']));

    const artefacts = filesUnder(out);
    const names = artefacts.map((file) => file.slice(out.length + 1));
    for (const dir of ['validate-ndjson', 'validate-har', 'validate-browser'])
      expect(names).toEqual(expect.arrayContaining([`${dir}/results.json`, `${dir}/junit.xml`]));
    expect(names.filter((name) => name.startsWith('validate-browser/allure-results/')).length).toBeGreaterThan(0);
    const texts = [
      ...artefacts.map((file) => ({ where: file, text: readFileSync(file, 'latin1') })),
      ...outputs.flatMap((output, index) => [
        { where: `stdout ${index}`, text: output.stdout },
        { where: `stderr ${index}`, text: output.stderr },
      ]),
    ];
    const planted = [
      ...Array.from({ length: 28 }, (_, i) => secret(i + 1)),
      ...Array.from({ length: 15 }, (_, i) => secret(i + 30)),
    ];
    const found = texts.flatMap(({ where, text }) =>
      planted.filter((s) => text.includes(s)).map((s) => `${s} in ${where}`),
    );
    expect(found).toEqual([]);

    // Not vacuous: every exchange was recorded and reported, with its secrets' places filtered.
    expect(readFileSync(at('traffic.ndjson'), 'utf8').trim().split('\n')).toHaveLength(4);
    for (const dir of ['validate-ndjson', 'validate-har', 'validate-browser']) {
      const results = readFileSync(at(`${dir}/results.json`), 'utf8');
      expect(results, dir).toContain('[Filtered]');
      expect(results, dir).toContain('x-auth-token');
    }
    const allure = artefacts.filter(
      (file) => file.includes('validate-browser/allure-results/') && file.endsWith('.json'),
    );
    expect(allure.some((file) => readFileSync(file, 'utf8').includes('[Filtered]'))).toBe(true);
  });

  it('are not quoted from a HAR file that does not parse', async () => {
    const broken = join(folder, 'broken.har');
    writeFileSync(broken, `{"log": {"entries": [{"client_secret": ${secret(50)}}]}}`);
    const result = await runCli(['validate', broken, '--report-dir', join(folder, 'broken')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not valid HAR');
    expect(`${result.stdout}${result.stderr}`).not.toContain(secret(50));
  });
});
