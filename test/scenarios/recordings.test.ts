import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';
import { clientBehindProxy } from './client-session.js';

// What the proxy records reads back as it was (its HAR and its NDJSON of one session give the same
// verdicts), and a browser's HAR, full of what is not the interface, is judged on the interface alone.

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-recordings-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

async function session(mode: string, extra: string[] = []): Promise<{ ndjson: string; har: string }> {
  const ndjson = join(folder, `${mode}.ndjson`);
  const har = join(folder, `${mode}.har`);
  const result = await clientBehindProxy(service.baseUrl, mode, ['--record', ndjson, '--har', har, ...extra]);
  expect(result.code, result.stderr).not.toBe(2);
  return { ndjson, har };
}

interface Results {
  rules: { id: string; status: string; evidence: number; formats: { format: string; broken: number }[] }[];
  traffic: unknown;
}

async function validated(
  file: string,
  extra: string[] = [],
): Promise<{ code: number | null; stdout: string; json: Results }> {
  const report = `${file}.results.json`;
  const result = await runCli(['validate', file, '--json-report', report, '--report-dir', join(folder, 'r'), ...extra]);
  return { code: result.code, stdout: result.stdout, json: JSON.parse(readFileSync(report, 'utf8')) };
}

const verdicts = (json: Results) =>
  json.rules.map((rule) => ({ id: rule.id, status: rule.status, evidence: rule.evidence, formats: rule.formats }));

describe("the proxy's HAR and NDJSON of one session", () => {
  it.each([
    ['good-json', []],
    ['json-upload-png-labelled-pdf', []],
    ['good-xml', ['--record-bodies']],
  ])('%s %o: validate gives the same verdict on each, rule by rule', async (mode, extra) => {
    const { ndjson, har } = await session(mode, extra as string[]);
    const fromNdjson = await validated(ndjson);
    const fromHar = await validated(har);
    expect(verdicts(fromHar.json)).toEqual(verdicts(fromNdjson.json));
    expect(fromHar.json.traffic).toEqual(fromNdjson.json.traffic);
    expect(fromHar.code).toBe(fromNdjson.code);
    // The upload was judged on the file's first bytes, never on a placeholder.
    expect(fromHar.json.rules.find((rule) => rule.id === 'upload.file-type')?.status).toBe('passed');
  });

  it('writes no placeholder where a binary body was: no text, the digest apart, base64 when bodies are kept', async () => {
    const digests = JSON.parse(readFileSync(join(folder, 'good-json.har'), 'utf8'));
    const upload = digests.log.entries.find((entry: { request: { url: string } }) =>
      /\/files\//.test(entry.request.url),
    );
    expect(upload.request.postData.text).toBeUndefined();
    expect(upload.request.postData._body).toMatchObject({ size: expect.any(Number), sha256: expect.any(String) });
    expect(upload.request.postData.comment).toMatch(/--record-bodies keeps it/);
    const whole = JSON.parse(readFileSync(join(folder, 'good-xml.har'), 'utf8'));
    const kept = whole.log.entries.find((entry: { request: { url: string } }) => /\/files\//.test(entry.request.url));
    expect(kept.request.postData.encoding).toBe('base64');
    expect(Buffer.from(kept.request.postData.text, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
  });
});

describe("a browser's HAR", () => {
  const entry = (
    method: string,
    url: string,
    status: number,
    headers: Record<string, string>,
    answer?: { type: string; text: string },
  ) => ({
    startedDateTime: '2026-11-24T10:00:00.000Z',
    time: 5,
    request: {
      method,
      url,
      httpVersion: 'HTTP/1.1',
      headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: answer ? [{ name: 'content-type', value: answer.type }] : [],
      cookies: [],
      content: {
        size: answer?.text.length ?? 0,
        mimeType: answer?.type ?? '',
        ...(answer ? { text: answer.text } : {}),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 5, receive: 0 },
  });

  it('is judged on the interface alone: preflights, the shop page and an analytics host are counted apart', async () => {
    const { har } = await session('good-browser-json');
    const recorded = JSON.parse(readFileSync(har, 'utf8'));
    const api = new URL(recorded.log.entries[0].request.url).origin;
    const checkout = recorded.log.entries.find((e: { request: { url: string } }) => /\/checkout\//.test(e.request.url));
    const noise = [
      entry(
        'GET',
        'https://shop.example.test/checkout',
        200,
        { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
        { type: 'text/html; charset=utf-8', text: '<!doctype html><title>Checkout</title>' },
      ),
      entry(
        'GET',
        'https://shop.example.test/checkout/step-2',
        200,
        { accept: 'text/html' },
        { type: 'text/html', text: '<p>step 2</p>' },
      ),
      entry('OPTIONS', checkout.request.url, 204, {
        origin: 'https://shop.example.test',
        'access-control-request-method': 'POST',
      }),
      entry(
        'POST',
        'https://analytics.example.test/collect',
        500,
        { 'content-type': 'application/json' },
        { type: 'application/json', text: '{"error":"down"}' },
      ),
      entry('GET', `${api}/favicon.ico`, 404, {}),
    ];
    // The shop's own JSON call under a checkout path, first of all: it looks like the interface, but
    // the order answer's URLs name the service.
    const shopCall = entry(
      'POST',
      'https://shop.example.test/checkout/payment',
      500,
      { 'content-type': 'application/json', accept: 'application/json' },
      { type: 'application/json', text: '{"error":"down"}' },
    );
    recorded.log.entries = [shopCall, ...noise.slice(0, 2), ...recorded.log.entries, ...noise.slice(2)];
    const browser = join(folder, 'browser.har');
    writeFileSync(browser, JSON.stringify(recorded));
    const result = await validated(browser);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/Not the interface \(judged by no rule\): .*CORS preflight \(OPTIONS\)/);
    expect(result.stdout).toMatch(/Not the interface \(judged by no rule\): .*another host/);
    expect(result.json.rules.find((rule) => rule.id === 'http.no-server-error')).toMatchObject({
      status: 'passed',
      evidence: 3,
    });
    expect(result.json.rules.find((rule) => rule.id === 'checkout.get.shape')?.status).toBe('passed');
    // Named, the service's base leaves out what lies elsewhere just the same.
    const named = await validated(browser, ['--base-url', `${api}/v2/`]);
    expect(verdicts(named.json)).toEqual(verdicts(result.json));
  });

  it('exits 2 when it holds no exchange of the interface, saying what it held', async () => {
    const pages = join(folder, 'pages.har');
    writeFileSync(
      pages,
      JSON.stringify({
        log: {
          version: '1.2',
          creator: { name: 'test', version: '1' },
          entries: [
            entry(
              'GET',
              'https://shop.example.test/',
              200,
              { accept: 'text/html' },
              { type: 'text/html', text: '<p>hi</p>' },
            ),
          ],
        },
      }),
    );
    const result = await runCli(['validate', pages, '--report-dir', join(folder, 'pages-reports')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^print-conformance: no exchange of the interface in \S+pages\.har \(it holds 1× a page \(text\/html\)\)/,
    );
  });
});
