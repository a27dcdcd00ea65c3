import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';

// A proxy session writes the reports run writes (results.json, junit.xml, Allure results) under
// --report-dir or where --json-report, --junit and --allure-dir say, so a client team's CI reads
// them with no step of its own. They tell the story the proxy's exit code tells.

let service: ReferenceService;
let folder: string;
let client: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-proxy-reports-'));
  client = join(folder, 'client.mjs');
  // The ReturnUrl is too long: the client breaks checkout.return-url.length, a must rule.
  const body = { ...JSON.parse(checkoutRequestJson()), returnUrl: `https://shop.example/${'x'.repeat(600)}` };
  writeFileSync(
    client,
    `const base = process.env.PRINT_CONFORMANCE_PROXY_URL;
const json = { 'content-type': 'application/json', accept: 'application/json' };
const order = await (await fetch(base + 'orders', { method: 'POST', headers: json })).json();
await (await fetch(order.checkout.setupUrl, { method: 'POST', headers: json, body: ${JSON.stringify(JSON.stringify(body))} })).text();
`,
  );
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

const NARROW = ['--format', 'json', '--skip', 'upload.', '--summary-interval', '0', '--quiet'];

describe('proxy reports', () => {
  it('writes results.json, junit.xml and Allure results under --report-dir, agreeing with the exit code', async () => {
    const reports = join(folder, 'session');
    const result = await runCli([
      'proxy',
      '--target',
      service.baseUrl,
      ...NARROW,
      '--report-dir',
      reports,
      '--',
      process.execPath,
      client,
    ]);
    expect(result.code, result.stderr).toBe(1);
    const json = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'));
    const failed = json.rules.filter(
      (rule: { status: string; severity: string }) => rule.status === 'failed' && rule.severity === 'must',
    );
    expect(failed.map((rule: { id: string }) => rule.id)).toContain('checkout.return-url.length');
    const junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/name="checkout\.return-url\.length" time="0"><failure /);
    const allure = readdirSync(join(reports, 'allure-results'))
      .filter((name) => name.endsWith('-result.json'))
      .map((name) => JSON.parse(readFileSync(join(reports, 'allure-results', name), 'utf8')));
    expect(allure.find((test) => test.name === 'checkout.return-url.length')?.status).toBe('failed');
    expect(allure.filter((test) => test.status === 'passed').length).toBe(json.summary.passed + json.summary.warnings);
    // --quiet: what failed, the summary line and where the reports went; not the table of what held.
    expect(result.stderr).toMatch(/^FAIL +checkout\.return-url\.length/m);
    expect(result.stderr).not.toMatch(/^PASS /m);
    expect(result.stderr).toMatch(/^\d+ passed, [1-9]\d* failed, /m);
    expect(result.stderr).toContain(`reports: ${join(reports, 'results.json')}, ${join(reports, 'junit.xml')}`);
  });

  it('writes each report where --json-report, --junit and --allure-dir name it', async () => {
    const places = { json: join(folder, 'r.json'), junit: join(folder, 'j.xml'), allure: join(folder, 'allure') };
    const result = await runCli([
      'proxy',
      '--target',
      service.baseUrl,
      ...NARROW,
      '--report-dir',
      join(folder, 'unused'),
      '--json-report',
      places.json,
      '--junit',
      places.junit,
      '--allure-dir',
      places.allure,
      '--',
      process.execPath,
      client,
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(readFileSync(places.json, 'utf8')).tool).toBe('print-conformance');
    expect(readFileSync(places.junit, 'utf8')).toContain('<testsuites name="print-conformance"');
    expect(readdirSync(places.allure).some((name) => name.endsWith('-result.json'))).toBe(true);
  });
});
