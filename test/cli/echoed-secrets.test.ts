import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactText } from '../../src/redaction/index.js';
import { runCli, startListeningCli } from '../helpers/cli.js';

// The credentials a user gives (--token, --header) and a secret in --target's query are written
// nowhere, even when the service echoes them: not by replay's reports and console, not by the
// proxy's reports, not in run's one-line error. The redaction masks values, not words.

const TOKEN = 'TOKSECRET123';
const HEADER = 'HDRSECRET456';
const QUERY = ['KEYSECRET789', 'SIGSECRET012'];
const ALL = [TOKEN, HEADER, ...QUERY];

let folder: string;
let server: Server;
let base = '';

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-echoed-'));
  // Echoes what it was sent with: in an order's answer, a checkout's city, an error.
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const echo = `${request.headers.authorization} ${request.headers['x-auth']}`;
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
      json(500, { message: `bad key ${echo}` });
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

/** Every file under a folder, as text. */
function textsUnder(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

function expectNone(text: string, where: string) {
  for (const secret of ALL) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
}

describe('credentials a service echoes', () => {
  it("run's one-line error leaves out a --header credential", async () => {
    const result = await runCli([
      'run',
      '--base-url',
      `${base}x/`,
      '--header',
      `X-Auth: ${HEADER}`,
      '--token',
      TOKEN,
      '--report-dir',
      join(folder, 'run'),
    ]);
    expect(result.code).toBe(2);
    expectNone(result.stderr + result.stdout, 'run console');
  });

  it('replay writes them in no report and no console line, nor the secrets of --target', async () => {
    const old = 'http://old.test/v2/';
    const answer = (body: unknown) => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { text: JSON.stringify(body), size: JSON.stringify(body).length },
    });
    const lines = [
      {
        request: {
          method: 'POST',
          url: `${old}orders`,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: { text: '{}', size: 2 },
        },
        response: { ...answer({ id: 'O1', checkout: { setupUrl: `${old}checkout/OLD1` } }), status: 201 },
      },
      {
        request: { method: 'GET', url: `${old}checkout/OLD1`, headers: { accept: 'application/json' } },
        response: answer({
          amount: 1,
          status: 'Open',
          paymentUrl: 'https://pay.test/x',
          billing: { address: { city: 'Amsterdam' } },
        }),
      },
    ];
    const recording = join(folder, 'session.ndjson');
    writeFileSync(recording, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const reports = join(folder, 'replay');
    const result = await runCli([
      'replay',
      recording,
      '--target',
      `${base}?api_key=${QUERY[0]}&sig=${QUERY[1]}`,
      '--recorded-base',
      old,
      '--token',
      TOKEN,
      '--header',
      `X-Auth: ${HEADER}`,
      '--report-dir',
      reports,
      '--allure-dir',
      join(reports, 'allure'),
      '--summary-md',
      join(reports, 'summary.md'),
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('/billing/address/city');
    expectNone(result.stdout + result.stderr, 'replay console');
    expectNone(textsUnder(reports), 'replay reports');
  });

  it("the proxy writes no secret of --target's query in its reports or console", async () => {
    const reports = join(folder, 'proxy');
    const proxy = await startListeningCli([
      'proxy',
      '--target',
      `${base}?api_key=${QUERY[0]}&sig=${QUERY[1]}`,
      '--json-report',
      join(reports, 'results.json'),
      '--summary-md',
      join(reports, 'summary.md'),
    ]);
    await fetch(`${proxy.url}checkout/abc`, { headers: { accept: 'application/json' } }).then((r) => r.text());
    const stopped = await proxy.stop();
    expectNone(stopped.stdout + stopped.stderr, 'proxy console');
    expectNone(textsUnder(reports), 'proxy reports');
  });

  it("masks a credential's value, not the words of a hint around it", () => {
    expect(redactText('send it as Authorization: Bearer …')).toBe('send it as Authorization: Bearer …');
    expect(redactText('Authorization: Bearer abc.def-123')).toBe('Authorization: Bearer [Filtered]');
  });
});
