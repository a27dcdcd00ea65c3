import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandLineSecrets, credentialValues } from '../../src/redaction/index.js';
import { runCli } from '../helpers/cli.js';

// Every credential the user gives is masked wherever the tool writes, also when the service
// echoes it: the value of any header they set (X-Shop-Key, not only Authorization), and those on a
// wrapped command's line (a URL's user:password, --password=…, -u user:pass).

const SHOP_KEY = 'SHOPKEY4711';
const URL_PASSWORD = 'URLPASS0815';
const OPTION_PASSWORD = 'OPTPASS1234';
const USER_PASSWORD = 'USERPASS5678';
const COMMAND_SECRETS = [URL_PASSWORD, OPTION_PASSWORD, USER_PASSWORD];

let folder: string;
let server: Server;
let base = '';

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-given-'));
  // Echoes every header it was sent, in an order's error, a checkout's city and amount.
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const echo = Object.values(request.headers).join(' ');
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      const path = request.url ?? '';
      if (path.startsWith('/v2/orders')) return json(201, { id: 'N1', checkout: { setupUrl: `${base}checkout/NEW1` } });
      if (path.startsWith('/v2/checkout/'))
        return json(200, {
          amount: echo,
          status: 'Open',
          paymentUrl: 'https://pay.test/x',
          billing: { address: { city: echo } },
        });
      json(403, { message: `refused key ${echo}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(folder, { recursive: true, force: true });
});

function textsUnder(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

function expectNone(text: string, secrets: string[], where: string) {
  for (const secret of secrets) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
}

describe('the credentials found among what the user gave', () => {
  it('are the values of any header but the plain ones, and those on a command line', () => {
    expect(
      credentialValues({
        'X-Shop-Key': 'abcd',
        'X-Tenant': 'tenant-0001',
        Accept: 'application/json',
        'X-Debug': 'true',
      }),
    ).toEqual(['abcd', 'tenant-0001']);
    expect(
      commandLineSecrets([
        'curl',
        '-u',
        'alice:PW1secret',
        `https://bob:PW2secret@x.test/a`,
        '--password=PW3secret',
        '--api-key',
        'PW4secret',
        '-H',
        'X-Shop-Key: PW5secret',
        'DB_PASSWORD=PW6secret',
        '-uvic:PW7secret',
      ]),
    ).toEqual(
      expect.arrayContaining([
        'alice:PW1secret',
        'PW1secret',
        'PW2secret',
        'PW3secret',
        'PW4secret',
        'PW5secret',
        'PW6secret',
        'PW7secret',
      ]),
    );
    // Words of a command line that are no credentials stay.
    expect(commandLineSecrets(['npm', 'test', '-u', '--', '--port', '8080', 'https://x.test/a'])).toEqual([]);
  });
});

describe('a credential the user gave, echoed by the service', () => {
  it("is not in run's one-line error (--header X-Shop-Key)", async () => {
    const result = await runCli([
      'run',
      '--base-url',
      `${base}x/`,
      '--header',
      `X-Shop-Key: ${SHOP_KEY}`,
      '--report-dir',
      join(folder, 'run'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/refused key/);
    expectNone(result.stderr + result.stdout, [SHOP_KEY], 'run console');
  });

  it('is in no report and no console line of replay (--header X-Shop-Key)', async () => {
    const old = 'http://old.test/v2/';
    const lines = [
      {
        request: {
          method: 'POST',
          url: `${old}orders`,
          headers: { accept: 'application/json' },
          body: { text: '{}', size: 2 },
        },
        response: {
          status: 201,
          headers: { 'content-type': 'application/json' },
          body: { text: JSON.stringify({ id: 'O1', checkout: { setupUrl: `${old}checkout/OLD1` } }), size: 60 },
        },
      },
      {
        request: { method: 'GET', url: `${old}checkout/OLD1`, headers: { accept: 'application/json' } },
        response: {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: {
            text: JSON.stringify({
              amount: 1,
              status: 'Open',
              paymentUrl: 'https://pay.test/x',
              billing: { address: { city: 'Delft' } },
            }),
            size: 90,
          },
        },
      },
    ];
    const recording = join(folder, 'session.ndjson');
    writeFileSync(recording, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const reports = join(folder, 'replay');
    const result = await runCli([
      'replay',
      recording,
      '--target',
      base,
      '--recorded-base',
      old,
      '--header',
      `X-Shop-Key: ${SHOP_KEY}`,
      '--report-dir',
      reports,
      '--allure-dir',
      join(reports, 'allure'),
      '--summary-md',
      join(reports, 'summary.md'),
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('/billing/address/city');
    expectNone(result.stdout + result.stderr, [SHOP_KEY], 'replay console');
    expectNone(textsUnder(reports), [SHOP_KEY], 'replay reports');
  });

  it("is not written by the proxy, its recordings included, when it stands on the wrapped command's line", async () => {
    const reports = join(folder, 'proxy');
    // The command reaches the service through the proxy with its credentials, which the service echoes.
    const script = `fetch(process.env.PRINT_CONFORMANCE_PROXY_URL + 'checkout/abc', { headers: { accept: 'application/json', 'x-pass': process.argv.slice(1).join(' ') } }).then((r) => r.text()).then(() => process.exit(3))`;
    const result = await runCli([
      'proxy',
      '--target',
      base,
      '--json-report',
      join(reports, 'results.json'),
      '--summary-md',
      join(reports, 'summary.md'),
      '--allure-dir',
      join(reports, 'allure'),
      '--record',
      join(reports, 'traffic.ndjson'),
      '--har',
      join(reports, 'traffic.har'),
      '--',
      process.execPath,
      '-e',
      script,
      `https://shop:${URL_PASSWORD}@shop.example.test/`,
      `--password=${OPTION_PASSWORD}`,
      '-u',
      `shop:${USER_PASSWORD}`,
    ]);
    expect(result.code, result.stderr).toBe(3);
    const written = textsUnder(reports);
    expect(written).toMatch(/billing\/address\/city|amount/);
    expect(written).toContain('--password=[Filtered]');
    expectNone(result.stdout + result.stderr, COMMAND_SECRETS, 'proxy console');
    expectNone(written, COMMAND_SECRETS, 'proxy reports');
  });
});
