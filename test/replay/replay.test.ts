import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingAnswer } from '../../src/reference/dialect.js';
import { type ReferenceOptions, type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';
import { clientBehindProxy } from '../scenarios/client-session.js';

// A session recorded through the proxy is sent again to services: clean against a fresh reference
// service, and a mutant's fault shown under its rule with the differing member named. Bodies kept
// as digests are named per exchange as not sent again, and how to record them whole.

/** Clients that build URLs by hand: a replay repeats their mistakes on the new order's codes. */
const CLIENT_MISTAKES = [
  'json-code-lower-cased',
  'json-checkout-order-id',
  'json-upload-order-id-content',
  'json-checkout-without-code',
  'json-upload-multipart-octet-stream',
];

interface Results {
  rules: { id: string; status: string; failures: { message: string }[] }[];
  traffic?: { notInterface: Record<string, number> };
  replay: {
    recorded: number;
    replayed: number;
    notReplayed: number;
    differing: number;
    notInterface: number;
    exchanges: {
      method: string;
      notReplayed?: string;
      differences: { member: string; recorded?: string; replayed?: string }[];
    }[];
  };
}

let recorder: ReferenceService;
let folder: string;
const recordings: Record<string, string> = {};

async function record(name: string, mode: string, extra: string[]): Promise<void> {
  const file = join(folder, `${name}.ndjson`);
  const result = await clientBehindProxy(recorder.baseUrl, mode, [
    '--record',
    file,
    '--har',
    join(folder, `${name}.har`),
    '--json-report',
    join(folder, `${name}.proxy.json`),
    ...extra,
  ]);
  expect(result.code, result.stderr).not.toBe(2);
  recordings[name] = file;
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-replay-'));
  recorder = await startReferenceService();
  await record('json', 'good-json', ['--record-bodies']);
  await record('xml', 'good-xml', ['--record-bodies']);
  await record('digests', 'good-json', []);
  for (const mode of CLIENT_MISTAKES) await record(mode, mode, ['--record-bodies']);
}, 60_000);

afterAll(async () => {
  await recorder.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Starts a service, replays `files` against it, and stops it. */
async function replayed(files: string[], options: ReferenceOptions = {}, extra: string[] = []) {
  const service = await startReferenceService(options);
  const report = join(folder, `results-${Math.random().toString(36).slice(2)}.json`);
  try {
    const result = await runCli([
      'replay',
      ...files,
      '--target',
      service.baseUrl,
      '--json-report',
      report,
      '--report-dir',
      join(folder, 'reports'),
      ...extra,
    ]);
    const orders = service.store.orders.size;
    let json: Results | undefined;
    try {
      json = JSON.parse(readFileSync(report, 'utf8'));
    } catch {
      json = undefined;
    }
    return { ...result, json, orders };
  } finally {
    await service.close();
  }
}

/** A checkout answer without the city of its billing address, in either format. */
function withoutCity(answer: OutgoingAnswer): OutgoingAnswer {
  if (answer.endpoint !== 'checkout' || answer.status >= 300) return answer;
  if (answer.format === 'xml') return { ...answer, body: answer.body.replace(/<City>[^<]*<\/City>/, '') };
  const body = JSON.parse(answer.body);
  delete body.billing?.address?.city;
  return { ...answer, body: JSON.stringify(body) };
}

const ruleOf = (json: Results | undefined, id: string) => json?.rules.find((rule) => rule.id === id);

describe('replay against a conformant service', () => {
  it('sends a JSON session again with fresh codes: every exchange replayed, none differs, exit 0', async () => {
    const result = await replayed([recordings.json as string]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json?.replay).toMatchObject({ recorded: 4, replayed: 4, notReplayed: 0, differing: 0 });
    expect(result.orders).toBe(1);
    expect(ruleOf(result.json, 'client.given-urls')?.status).toBe('passed');
    expect(ruleOf(result.json, 'upload.file-type')?.status).toBe('passed');
    expect(result.stdout).toContain('Replay: 4 of 4 recorded exchanges sent again, 0 answered otherwise');
  });

  it('sends an XML session again: exit 0, the XML rules passed', async () => {
    const result = await replayed([recordings.xml as string]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json?.replay).toMatchObject({ replayed: 4, differing: 0 });
    expect(ruleOf(result.json, 'checkout.xml.tax-nil')?.status).toBe('passed');
  });

  it('replays two recordings as one session, each with its own fresh order', async () => {
    const result = await replayed([recordings.json as string, recordings.xml as string]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json?.replay).toMatchObject({ recorded: 8, replayed: 8, differing: 0 });
  });
});

describe('replay of HAR files and of clients that get the interface wrong', () => {
  it('a HAR with bodies replays as its NDJSON does; a HAR of digests names the upload it cannot send', async () => {
    const har = await replayed([(recordings.json as string).replace(/\.ndjson$/, '.har')]);
    expect(har.code, har.stderr).toBe(0);
    expect(har.json?.replay).toMatchObject({ recorded: 4, replayed: 4, differing: 0 });
    const digests = await replayed([(recordings.digests as string).replace(/\.ndjson$/, '.har')]);
    // The upload the recording holds was not tested again: its rules are untested, never skipped.
    expect(digests.code, digests.stderr).toBe(1);
    expect(digests.json?.replay).toMatchObject({ replayed: 3, notReplayed: 1 });
    expect(digests.json?.replay.exchanges[0]?.notReplayed).toMatch(/--record-bodies/);
  });

  it.each(CLIENT_MISTAKES)(
    '%s: the replay repeats the mistake on the new codes and gets the verdicts the proxy gave',
    async (mode) => {
      const proxied: Results = JSON.parse(readFileSync(join(folder, `${mode}.proxy.json`), 'utf8'));
      const result = await replayed([recordings[mode] as string]);
      expect(result.code).toBe(1);
      const verdicts = (json: Results | undefined) =>
        Object.fromEntries((json?.rules ?? []).map((rule) => [rule.id, rule.status]));
      expect(verdicts(result.json)).toEqual(verdicts(proxied));
      const broken = mode.includes('multipart') ? 'upload.content-type' : 'client.given-urls';
      expect(ruleOf(result.json, broken)?.status).toBe('failed');
    },
  );
});

describe('replay against mutant services', () => {
  it('a service that drops city from checkout answers: checkout.echo fails and the city is named, exit 1', async () => {
    const summary = join(folder, 'no-city.md');
    const result = await replayed([recordings.json as string], { dialect: { rewrite: withoutCity } }, [
      '--summary-md',
      summary,
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(readFileSync(summary, 'utf8')).toMatch(
      /- differs: POST \S+\/checkout\/\S+ \(line 2\): \/billing\/address\/city: recorded "Amsterdam", now absent/,
    );
    const echo = ruleOf(result.json, 'checkout.echo');
    expect(echo?.status).toBe('failed');
    expect(echo?.failures.map((failure) => failure.message).join('\n')).toMatch(/city/i);
    const differences = result.json?.replay.exchanges.flatMap((entry) => entry.differences) ?? [];
    expect(differences).toContainEqual({ member: '/billing/address/city', recorded: 'Amsterdam' });
    expect(result.stdout).toContain('/billing/address/city: recorded "Amsterdam", now absent');
  });

  it('the same fault in XML names the member as XML writes it', async () => {
    const result = await replayed([recordings.xml as string], { dialect: { rewrite: withoutCity } });
    expect(result.code, result.stderr).toBe(1);
    expect(ruleOf(result.json, 'checkout.echo')?.status).toBe('failed');
    const differences = result.json?.replay.exchanges.flatMap((entry) => entry.differences) ?? [];
    expect(differences).toContainEqual({ member: '/Billing/Address/City', recorded: 'Amsterdam' });
  });

  it('a service that answers FileType application/pdf: upload.file-type fails, FileType named, exit 1', async () => {
    const result = await replayed([recordings.json as string], { dialect: { fileTypeOf: () => 'application/pdf' } });
    expect(result.code, result.stderr).toBe(1);
    expect(ruleOf(result.json, 'upload.file-type')?.status).toBe('failed');
    const differences = result.json?.replay.exchanges.flatMap((entry) => entry.differences) ?? [];
    expect(differences).toContainEqual({ member: '/fileType', recorded: 'PDF', replayed: 'application/pdf' });
  });

  it('a status class that changes is a difference, while what must differ (codes, PaymentUrl) is not', async () => {
    const refusing = (answer: OutgoingAnswer) =>
      answer.endpoint === 'upload' ? { ...answer, status: 500, body: '{"error":"down"}' } : answer;
    const result = await replayed([recordings.json as string], { dialect: { rewrite: refusing } });
    expect(result.code, result.stderr).toBe(1);
    expect(result.json?.replay.differing).toBe(1);
    expect(result.json?.replay.exchanges[0]?.differences).toContainEqual({
      member: 'status',
      recorded: '200',
      replayed: '500',
    });
  });
});

describe('what cannot or must not be sent again', () => {
  it('an upload recorded as a digest is not sent, with why and how to record it; the rest is replayed', async () => {
    const result = await replayed([recordings.digests as string]);
    // The recording holds an upload, which this replay could not test: exit 1, its rules untested.
    expect(result.code, result.stderr).toBe(1);
    expect(ruleOf(result.json, 'upload.response.schema')).toMatchObject({
      status: 'untested',
      reason: expect.stringContaining('every POST files (1) was not sent again'),
    });
    expect(ruleOf(result.json, 'checkout.response.schema')?.status).toBe('passed');
    expect(result.json?.replay).toMatchObject({ recorded: 4, replayed: 3, notReplayed: 1 });
    const [entry] = result.json?.replay.exchanges ?? [];
    expect(entry?.method).toBe('POST');
    expect(entry?.notReplayed).toMatch(/digest.*--record-bodies/);
    expect(result.stdout).toMatch(/not sent .*digests\.ndjson:4 POST .*files\//);
  });

  it('a recording whose interface exchanges are all digests: exit 2, one line saying how to record them', async () => {
    const lines = readFileSync(recordings.digests as string, 'utf8')
      .trim()
      .split('\n');
    const uploadsOnly = join(folder, 'uploads-only.ndjson');
    writeFileSync(uploadsOnly, `${lines.filter((line) => /"url":"[^"]*\/(orders|files\/)/.test(line)).join('\n')}\n`);
    const result = await replayed([uploadsOnly]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(
      /^print-conformance: nothing in .* could be replayed: 2 of 2 .*digest.*--record-bodies/,
    );
    // Nothing after it could be sent, so no order was placed on the target for nothing.
    expect(result.orders).toBe(0);
    expect(result.stdout).toMatch(/not sent .*uploads-only\.ndjson:2 POST/);
  });

  it('preflights, pages and other hosts are counted apart and never sent', async () => {
    const lines = readFileSync(recordings.json as string, 'utf8')
      .trim()
      .split('\n');
    const first = JSON.parse(lines[1] as string);
    const preflight = {
      request: {
        method: 'OPTIONS',
        url: first.request.url,
        headers: { origin: 'https://shop.example.test', 'access-control-request-method': 'POST' },
      },
      response: { status: 204, headers: {} },
    };
    // Sent again, this one would fail: nothing listens on port 9 of this host.
    const elsewhere = {
      request: { method: 'GET', url: 'http://127.0.0.1:9/shop/basket', headers: { accept: 'text/html' } },
      response: { status: 200, headers: { 'content-type': 'text/html' }, body: { size: 6, text: '<html>' } },
    };
    const mixed = join(folder, 'mixed.ndjson');
    writeFileSync(
      mixed,
      `${[lines[0], JSON.stringify(preflight), JSON.stringify(elsewhere), ...lines.slice(1)].join('\n')}\n`,
    );
    const result = await replayed([mixed]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json?.replay).toMatchObject({ recorded: 4, replayed: 4, notInterface: 2 });
    expect(Object.values(result.json?.traffic?.notInterface ?? {}).reduce((a, n) => a + n, 0)).toBe(2);
  });

  it('redacted credentials are never sent as such: --token takes their place', async () => {
    const withAuth = join(folder, 'with-auth.ndjson');
    const lines = readFileSync(recordings.json as string, 'utf8')
      .trim()
      .split('\n');
    writeFileSync(
      withAuth,
      `${lines
        .map((line) => {
          const exchange = JSON.parse(line);
          exchange.request.headers.authorization = '[Filtered]';
          return JSON.stringify(exchange);
        })
        .join('\n')}\n`,
    );
    const guarded = { token: 'replay-secret-token' };
    const without = await replayed([withAuth], guarded);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain("the recording's authorization header was redacted");
    expect(without.stderr).toMatch(/refused with 401\/403: check the credentials/);
    const given = await replayed([withAuth], guarded, ['--token', 'replay-secret-token']);
    expect(given.code, given.stderr).toBe(0);
    expect(given.json?.replay).toMatchObject({ replayed: 4, differing: 0 });
    expect(readFileSync(join(folder, 'reports', 'junit.xml'), 'utf8')).not.toContain('replay-secret-token');
    expect(JSON.stringify(given.json)).not.toContain('replay-secret-token');
    const header = await replayed([withAuth], guarded, ['--header', 'Authorization: Bearer replay-secret-token']);
    expect(header.code, header.stderr).toBe(0);
    expect(JSON.stringify(header.json)).not.toContain('replay-secret-token');
    expect(header.stdout + header.stderr).not.toContain('replay-secret-token');
  });

  it('lines that are not JSON or not a request of the recorded shape are skipped with a warning', async () => {
    const lines = readFileSync(recordings.json as string, 'utf8')
      .trim()
      .split('\n');
    const odd = JSON.stringify({ request: { method: 'POST', url: 'http://127.0.0.1:9/v2/files/x', headers: 'x' } });
    const broken = join(folder, 'broken.ndjson');
    writeFileSync(broken, `${[lines[0], '{"request": {"meth', odd, ...lines.slice(1)].join('\n')}\n`);
    const result = await replayed([broken]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json?.replay).toMatchObject({ recorded: 4, replayed: 4 });
    expect(result.stderr).toMatch(/warning: .*broken\.ndjson: line 2 is not JSON/);
    expect(result.stderr).toMatch(
      /warning: .*broken\.ndjson: line 3 is not a recorded exchange: request\.headers is not an object/,
    );
  });

  it('a target that cannot be reached: exit 2 with one line', async () => {
    const result = await runCli([
      'replay',
      recordings.json as string,
      '--target',
      'http://127.0.0.1:9/v2/',
      '--report-dir',
      join(folder, 'r9'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^print-conformance: cannot reach --target http:\/\/127\.0\.0\.1:9\/v2\//m);
  });

  it('a recording that holds no exchange of the interface: exit 2', async () => {
    const empty = join(folder, 'pages.ndjson');
    writeFileSync(
      empty,
      `${JSON.stringify({ request: { method: 'GET', url: 'http://127.0.0.1:9/', headers: { accept: 'text/html' } } })}\n`,
    );
    const result = await runCli([
      'replay',
      empty,
      '--target',
      'http://127.0.0.1:9/v2/',
      '--report-dir',
      join(folder, 'r0'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no exchange of the interface/);
  });
});
