import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Recorder } from '../../proxy/recorder.js';
import { send } from '../../src/http/send.js';
import { startReferenceService } from '../../src/reference/service.js';
import type { Exchange } from '../../src/validate/exchange.js';
import { runCli } from '../helpers/cli.js';
import { checkoutRequestJson, checkoutRequestXml } from '../helpers/exchanges.js';

// Recorded traffic of a client talking to the reference service and to a variant without Tax.

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-validate-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function traffic(dialect = {}, returnUrl?: string): Promise<Exchange[]> {
  const service = await startReferenceService({ dialect });
  try {
    const order = JSON.parse(
      (await send({ method: 'POST', url: `${service.baseUrl}orders` })).response?.body?.text ?? '{}',
    );
    const url = order.checkout.setupUrl as string;
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    const xml = { 'content-type': 'application/xml', accept: 'application/xml' };
    const body = returnUrl
      ? JSON.stringify({ ...JSON.parse(checkoutRequestJson()), returnUrl })
      : checkoutRequestJson();
    return [
      await send({ method: 'POST', url, headers: json, body }),
      await send({ method: 'POST', url, headers: xml, body: checkoutRequestXml() }),
      await send({
        method: 'GET',
        url,
        headers: { accept: 'application/xml', authorization: 'Bearer tok-hidden-123' },
      }),
    ];
  } finally {
    await service.close();
  }
}

const ndjson = (exchanges: Exchange[]) => exchanges.map((e) => JSON.stringify({ ...e, violations: [] })).join('\n');

function har(exchanges: Exchange[]) {
  const headers = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));
  return JSON.stringify({
    log: {
      version: '1.2',
      creator: { name: 'test', version: '1' },
      entries: exchanges.map((e) => ({
        startedDateTime: e.startedAt,
        time: e.durationMs,
        request: {
          method: e.request.method,
          url: e.request.url,
          httpVersion: 'HTTP/1.1',
          headers: headers(e.request.headers),
          ...(e.request.body?.text
            ? { postData: { mimeType: e.request.headers['content-type'], text: e.request.body.text } }
            : {}),
        },
        response: {
          status: e.response?.status,
          headers: headers(e.response?.headers ?? {}),
          content: {
            size: e.response?.body?.size,
            mimeType: e.response?.headers['content-type'],
            text: e.response?.body?.text,
          },
        },
      })),
    },
  });
}

describe('print-conformance validate', () => {
  it('passes a clean NDJSON recording and a clean HAR', async () => {
    const exchanges = await traffic();
    writeFileSync(join(folder, 'clean.ndjson'), ndjson(exchanges));
    writeFileSync(join(folder, 'clean.har'), har(exchanges));
    for (const file of ['clean.ndjson', 'clean.har']) {
      const reports = join(folder, `r-${file}`);
      const result = await runCli([
        'validate',
        join(folder, file),
        '--report-dir',
        reports,
        '--only',
        'checkout.,format.,http.',
      ]);
      expect(result.code, result.stdout).toBe(0);
      expect(result.stderr).toContain('3 exchanges read');
      const json = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'));
      expect(json.rules.find((r: { id: string }) => r.id === 'checkout.xml.tax-nil')).toMatchObject({
        status: 'passed',
        evidence: 2,
      });
      expect(json.rules.find((r: { id: string }) => r.id === 'upload.raw').status).toBe('skipped');
    }
    // Traffic without a single upload is judged on what it did: the upload rules are skipped as not
    // exercised, and said so; asked for by name (--only, --format), they are untested and fail.
    const all = await runCli(['validate', join(folder, 'clean.ndjson'), '--report-dir', join(folder, 'r-all')]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(
      /skip\s+upload\.response\.schema\s+must\s+not exercised: this traffic never called POST files\/\{code\}/,
    );
    expect(all.stdout).toContain('Not exercised by this traffic (their rules skipped): POST files/{code}');
    const named = await runCli(['validate', join(folder, 'clean.ndjson'), '--format', 'both']);
    expect(named.code).toBe(1);
    expect(named.stdout).toMatch(
      /UNTESTED\s+upload\.response\.schema\s+must\s+no exchange could test it: it needs an accepted upload answer whose body could be read; no POST files was made/,
    );
  });

  it('reads the whole entries of a HAR the proxy could not close (killed mid-write), and says it ends early', async () => {
    const exchanges = await traffic();
    const file = join(folder, 'killed.har');
    const recorder = new Recorder(undefined, file);
    await recorder.ready();
    for (const exchange of exchanges) recorder.record({ ...exchange, violations: [] });
    await recorder.close();
    const whole = readFileSync(file, 'utf8');
    // Cut inside the last entry, as a kill -9 during a write would leave it.
    writeFileSync(file, whole.slice(0, whole.lastIndexOf('"response"')));
    const result = await runCli([
      'validate',
      file,
      '--report-dir',
      join(folder, 'r-killed'),
      '--only',
      'checkout.echo',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'the HAR document ends early (cut off before it was closed?): its first 2 entries were read',
    );
    expect(result.stderr).toContain('2 exchanges read');
    writeFileSync(file, whole.slice(0, whole.indexOf('"entries"')));
    const nothing = await runCli(['validate', file]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/killed\.har is not valid HAR: /);
  });

  it('fails the rule a service broke, in NDJSON and HAR alike, and keeps credentials out of the reports', async () => {
    const exchanges = await traffic({
      rewrite: (a: { format: string; body: string }) =>
        a.format === 'xml' ? { ...a, body: a.body.replace(/\s*<Tax [^>]*\/>/, '') } : a,
    });
    writeFileSync(
      join(folder, 'broken.ndjson'),
      `${ndjson(exchanges)}\n{"request": {"method": "GET", "url": "http://cut`,
    );
    writeFileSync(join(folder, 'broken.har'), har(exchanges));
    for (const file of ['broken.ndjson', 'broken.har']) {
      const reports = join(folder, `r-${file}`);
      const result = await runCli(['validate', join(folder, file), '--report-dir', reports]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/FAIL\s+checkout\.xml\.tax-nil/);
      const junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
      expect(junit).toMatch(/<testcase classname="checkout" name="checkout\.xml\.tax-nil" time="0"><failure /);
      expect(readFileSync(join(reports, 'results.json'), 'utf8')).not.toContain('tok-hidden-123');
      const allure = readdirSync(join(reports, 'allure-results')).filter((f) => f.endsWith('-result.json'));
      const taxNil = allure
        .map((f) => JSON.parse(readFileSync(join(reports, 'allure-results', f), 'utf8')))
        .find((r) => r.name === 'checkout.xml.tax-nil');
      expect(taxNil.status).toBe('failed');
      expect(taxNil.labels).toEqual(
        expect.arrayContaining([
          { name: 'rule', value: 'checkout.xml.tax-nil' },
          { name: 'severity', value: 'critical' },
        ]),
      );
      expect(taxNil.attachments).toHaveLength(1);
    }
    const cut = await runCli([
      'validate',
      join(folder, 'broken.ndjson'),
      '--report-dir',
      join(folder, 'r-cut'),
      '--reporter',
      'github',
    ]);
    expect(cut.stdout).toMatch(
      /^::error title=print-conformance checkout\.xml\.tax-nil::response: XML checkout has no <Tax> element under the root%0APOST http/m,
    );
    expect(cut.stderr).toContain('line 4 is not JSON (cut off?); skipped');
  });

  it('judges the client side too: a ReturnUrl of 513 characters sent', async () => {
    const exchanges = await traffic({}, `https://e.test/?${'a'.repeat(497)}`);
    writeFileSync(join(folder, 'client.ndjson'), ndjson(exchanges));
    const result = await runCli(['validate', join(folder, 'client.ndjson'), '--report-dir', join(folder, 'r-client')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/FAIL\s+checkout\.return-url\.length/);
    expect(result.stdout).toContain('request: ReturnUrl has 513 UTF-16 code units');
  });

  it('counts every violation of a large recording but keeps only a few exchanges per rule', async () => {
    const line = JSON.stringify({
      request: { method: 'GET', url: 'http://s.test/v2/checkout/c', headers: { accept: 'application/json' } },
      response: { status: 500, headers: { 'content-type': 'application/json' }, body: { text: '{}', size: 2 } },
      violations: [],
    });
    writeFileSync(join(folder, 'many.ndjson'), Array.from({ length: 300 }, () => line).join('\n'));
    const reports = join(folder, 'r-many');
    expect((await runCli(['validate', join(folder, 'many.ndjson'), '--report-dir', reports])).code).toBe(1);
    const rule = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')).rules.find(
      (r: { id: string }) => r.id === 'http.no-server-error',
    );
    expect(rule.failures).toHaveLength(50);
    expect(rule.moreFailures).toBe(250);
  });

  it('replaces the Allure results of an earlier run in its folder, and leaves other files alone', async () => {
    const exchanges = await traffic();
    writeFileSync(join(folder, 'again.ndjson'), ndjson(exchanges));
    const reports = join(folder, 'r-again');
    const results = () => readdirSync(join(reports, 'allure-results')).filter((f) => f.endsWith('-result.json'));
    await runCli(['validate', join(folder, 'again.ndjson'), '--report-dir', reports]);
    const first = results();
    expect(first.length).toBeGreaterThan(0);
    writeFileSync(join(reports, 'allure-results', 'notes.txt'), 'mine');
    await runCli(['validate', join(folder, 'again.ndjson'), '--report-dir', reports]);
    expect(results()).toHaveLength(first.length);
    expect(results().some((name) => first.includes(name))).toBe(false);
    expect(readFileSync(join(reports, 'allure-results', 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('skips with a warning an exchange of the wrong shape, and judges the rest', async () => {
    const line = (text: unknown, status: number) =>
      JSON.stringify({
        request: { method: 'GET', url: 'http://s.test/v2/checkout/c', headers: { accept: 'application/json' } },
        response: { status, headers: { 'content-type': 'application/json' }, body: { text } },
      });
    writeFileSync(join(folder, 'shape.ndjson'), [line(5, 200), line('{}', 500)].join('\n'));
    const result = await runCli(['validate', join(folder, 'shape.ndjson'), '--report-dir', join(folder, 'r-shape')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 1 is not a recorded exchange: response.body.text is not a string; skipped');
    expect(result.stderr).toContain('1 exchanges read, 1 lines skipped');
    expect(result.stdout).toMatch(/FAIL\s+http\.no-server-error/);
  });

  it('names the field of another type in a recorded line, and never judges it', async () => {
    type Fields = Record<string, unknown>;
    const good = () => ({
      request: { method: 'GET', url: 'http://s.test/v2/checkout/c', headers: { accept: 'application/json' } } as Fields,
      response: {
        status: 200 as unknown,
        headers: { 'content-type': 'application/json' } as Fields,
        body: { size: 2, text: '{}' } as Fields,
      },
    });
    type Line = ReturnType<typeof good>;
    const cases: [(line: Line) => void, string][] = [
      [(l) => Object.assign(l.response, { status: 99999 }), 'response.status 99999 is not an HTTP status (100-599)'],
      [(l) => Object.assign(l.response, { status: '500' }), 'response.status is not a number'],
      [
        (l) => Object.assign(l.response, { headers: [['content-type', 'x']] }),
        'response.headers is not an object of names and values',
      ],
      [
        (l) => Object.assign(l.response.headers, { 'content-type': 5 }),
        'response.headers["content-type"] is not a string',
      ],
      [(l) => Object.assign(l.request, { body: 'hello' }), 'request.body is not an object'],
      [(l) => Object.assign(l.response.body, { base64: 7 }), 'response.body.base64 is not a string'],
      [(l) => Object.assign(l.response.body, { size: -5 }), 'response.body.size is not a number of bytes'],
      [(l) => Object.assign(l.response.body, { parts: { a: 1 } }), 'response.body.parts is not a list'],
      [(l) => Object.assign(l, { response: 'x' }), 'response is not an object'],
    ];
    const lines = cases.map(([spoil]) => {
      const line = good();
      spoil(line);
      return JSON.stringify(line);
    });
    // A hand-made line: headers in another case and a body without its size are read as the proxy writes them.
    const handMade = good();
    handMade.response.headers = { 'Content-Type': 'application/xml' };
    handMade.response.body = { text: '<a/>' };
    writeFileSync(
      join(folder, 'fields.ndjson'),
      [...lines, JSON.stringify(good()), JSON.stringify(handMade)].join('\n'),
    );
    const result = await runCli(['validate', join(folder, 'fields.ndjson'), '--report-dir', join(folder, 'r-fields')]);
    for (const [index, [, flaw]] of cases.entries())
      expect(result.stderr).toContain(`line ${index + 1} is not a recorded exchange: ${flaw}; skipped`);
    expect(result.stderr).not.toMatch(/is not a function|could not be judged/);
    expect(result.stderr).toContain(`2 exchanges read, ${cases.length} lines skipped`);
    const report = JSON.parse(readFileSync(join(folder, 'r-fields', 'results.json'), 'utf8'));
    const rules = report.rules as { id: string; status: string; evidence: number }[];
    // Neither the status 99999 nor the "500" is judged as a server error.
    expect(rules.find((r) => r.id === 'http.no-server-error')).toMatchObject({ status: 'passed', evidence: 2 });
    // The hand-made answer is read as XML: it was asked for as JSON.
    expect(result.stdout).toMatch(/FAIL\s+format\./);
  });

  it('says in one line, exit 2, when a file cannot be read or holds nothing', async () => {
    const missing = await runCli(['validate', join(folder, 'nope.ndjson')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^print-conformance: cannot read \S+nope\.ndjson: no such file\n$/);
    writeFileSync(join(folder, 'empty.ndjson'), '\n');
    const empty = await runCli(['validate', join(folder, 'empty.ndjson')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/no exchange of the interface in .*empty\.ndjson \(it holds no exchange at all\)/);
    const notAFolder = await runCli(['validate', join(folder, 'empty.ndjson'), '--report-dir', '/etc/hostname/r']);
    expect(notAFolder.code).toBe(2);
    expect(notAFolder.stderr).toBe(
      'print-conformance: --report-dir /etc/hostname/r: cannot write there (a part of its path is not a folder)\n',
    );
    const folderAsFile = await runCli(['validate', join(folder, 'empty.ndjson'), '--junit', folder]);
    expect(folderAsFile.stderr).toBe(`print-conformance: --junit ${folder} is a folder\n`);
    writeFileSync(join(folder, 'bad.har'), '{"log": {"entries": 5}}');
    expect((await runCli(['validate', join(folder, 'bad.har')])).stderr).toMatch(
      /is not valid HAR: log\.entries is missing\n$/,
    );
  });
});
