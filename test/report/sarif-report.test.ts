import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES, type RuleId, ruleById } from '../../src/contract/rules.js';
import type { RunResult } from '../../src/findings/types.js';
import { startReferenceService } from '../../src/reference/service.js';
import { runResult } from '../../src/report/run-result.js';
import { operationUri, sarifReport } from '../../src/report/sarif-report.js';
import { emptyTally } from '../../src/validate/tally.js';
import { verdictsOf } from '../../src/validate/verdicts.js';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { githubSarifProblems } from '../helpers/github-sarif.js';
import { setUpWithShortReturnUrl } from '../helpers/proxy-fixture.js';

// The SARIF log is read by code scanning only if it holds to the SARIF 2.1.0 schema. The schema is
// the one published with SARIF 2.1.0 (rtm.5, JSON Schema draft-04), as the npm package
// @microsoft/jest-sarif 1.0.0-beta.0 (MIT) ships it.

const schema = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'sarif', 'sarif-schema-2.1.0.json'), 'utf8'),
);
// Both are CommonJS modules whose default export TypeScript sees one level down.
const Ajv = AjvDraft04 as unknown as typeof AjvDraft04.default;
const addFormats = ajvFormats as unknown as typeof ajvFormats.default;
// The schema's language pattern is no valid Unicode-mode regular expression; it is valid without the flag.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validateSarif = ajv.compile(schema);

function expectValidSarif(text: string) {
  const log = JSON.parse(text);
  const valid = validateSarif(log);
  expect(valid ? [] : validateSarif.errors).toEqual([]);
  expect(githubSarifProblems(text)).toEqual([]);
  return log;
}

const exchange = (url: string) => ({ method: 'POST', url, requestHeaders: {}, status: 201 });

function resultWith(options: { untested?: RuleId; strict?: boolean } = {}): RunResult {
  const tally = emptyTally();
  Object.assign(tally.evidence, Object.fromEntries(RULES.map((r) => [r.id, { json: 2, xml: 2, any: 2 }])));
  if (options.untested) delete tally.evidence[options.untested];
  tally.broken['checkout.status.open'] = { json: 2, xml: 1 };
  tally.broken['checkout.payment-url'] = { json: 1 };
  tally.findings.push(
    {
      rule: 'checkout.status.open',
      format: 'json',
      side: 'response',
      message: 'Status "Pending"',
      exchange: exchange('http://s.test/v2/checkout/a'),
      at: { file: 1, line: 7 },
    },
    {
      rule: 'checkout.status.open',
      format: 'xml',
      side: 'response',
      message: 'Status "Pending"',
      exchange: exchange('http://s.test/v2/checkout/b'),
    },
    {
      rule: 'checkout.payment-url',
      format: 'json',
      side: 'response',
      message: 'PaymentUrl is relative',
      exchange: exchange('http://s.test/v2/checkout/c'),
    },
  );
  const selected = new Set<RuleId>(RULES.map((r) => r.id));
  const context = {
    face: 'traffic' as const,
    selected,
    formats: ['json' as const, 'xml' as const],
    strict: options.strict ?? false,
  };
  return runResult({
    target: 'http://s.test/v2/',
    started: Date.now() - 500,
    context,
    rules: verdictsOf(tally, context),
    tally,
  });
}

describe('SARIF report', () => {
  it('holds one result per failed rule and format, with the catalog text as the rule help', () => {
    const log = expectValidSarif(sarifReport(resultWith(), { recordings: ['a.ndjson', 'rec/b.ndjson'], cwd: '/x' }));
    const [run] = log.runs;
    const results = run.results.map((r: { ruleId: string; properties: { format: string }; level: string }) => [
      r.ruleId,
      r.properties.format,
      r.level,
    ]);
    expect(results).toEqual([
      ['checkout.status.open', 'json', 'error'],
      ['checkout.status.open', 'xml', 'error'],
      ['checkout.payment-url', 'json', 'warning'],
    ]);
    const open = ruleById('checkout.status.open');
    const descriptor = run.tool.driver.rules[run.results[0].ruleIndex];
    expect(descriptor.id).toBe('checkout.status.open');
    expect(descriptor.help.text).toContain(open.description);
    expect(descriptor.fullDescription.text).toBe(open.description);
    expect(run.results[0].message.text).toContain('(2 exchanges broke it)');
    // A finding read from a recording points at its file and line; one from live traffic at the
    // operation it called, the URL in the message.
    expect(run.results[0].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'rec/b.ndjson' },
      region: { startLine: 7 },
    });
    expect(run.results[1].locations[0].physicalLocation.artifactLocation.uri).toBe('operations/POST-checkout');
    expect(run.results[1].message.text).toContain('POST http://s.test/v2/checkout/b → 201');
    expect(run.invocations[0].exitCode).toBe(1);
  });

  it('checks against a schema that refuses what code scanning refuses', () => {
    const log = JSON.parse(sarifReport(resultWith()));
    log.runs[0].results[0].level = 'fatal';
    expect(validateSarif(log)).toBe(false);
    log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = 'http://s.test/v2/checkout/b';
    expect(githubSarifProblems(JSON.stringify(log))).toContain('URI with a scheme: http://s.test/v2/checkout/b');
  });

  it('writes every URI relative and without a scheme, whatever the path or URL', () => {
    expect(operationUri('GET', 'https://s.test:8443/v2/files/abc/')).toBe('operations/GET-files');
    expect(operationUri('post', 'not a url')).toBe('operations/POST-not_a_url');
    expect(operationUri('', 'http://s.test/')).toBe('operations/REQUEST-root');
    expect(operationUri('GET', 'http://s.test/v2/x:y')).toBe('operations/GET-x_y');
    const text = sarifReport(resultWith(), { recordings: ['a.ndjson', 'c:b.ndjson'], cwd: '/x' });
    expectValidSarif(text);
    expect(JSON.parse(text).runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('c%3Ab.ndjson');
    const outside = JSON.parse(sarifReport(resultWith(), { recordings: ['a', '/y/rec.ndjson'], cwd: '/x' }));
    expect(outside.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('../y/rec.ndjson');
  });

  it('names an untested must rule as a notification, so an exit 1 is never a clean log', () => {
    const log = expectValidSarif(sarifReport(resultWith({ untested: 'checkout.xml.tax-nil', strict: true })));
    const [run] = log.runs;
    expect(run.results.find((r: { ruleId: string }) => r.ruleId === 'checkout.payment-url').level).toBe('error');
    const notes = run.invocations[0].toolExecutionNotifications;
    expect(notes.map((n: { descriptor: { id: string } }) => n.descriptor.id)).toEqual(['checkout.xml.tax-nil']);
    expect(notes[0].message.text).toMatch(/^checkout\.xml\.tax-nil untested: /);
  });
});

describe('--sarif on validate and merge', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'print-conformance-sarif-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const line = (code: string, body: string) =>
    JSON.stringify({
      request: { method: 'GET', url: `http://s.test/v2/checkout/${code}`, headers: { accept: 'application/json' } },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: { text: body } },
    });
  const good =
    '{"amount": 1.0, "status": "Open", "paymentUrl": "https://p.test/x", "returnUrl": "https://r.test/", "billing": {"address": {"country": "NL"}}}';

  it('writes a schema-valid log naming the recording line that broke the rule', async () => {
    writeFileSync(
      join(folder, 'traffic.ndjson'),
      [line('a', good), line('b', good.replace('"amount": 1.0', '"amount": "one"'))].join('\n'),
    );
    const sarif = join(folder, 'out', 'validate.sarif');
    const validated = await runCli(
      ['validate', join(folder, 'traffic.ndjson'), '--report-dir', join(folder, 'r'), '--sarif', sarif],
      { cwd: folder },
    );
    expect(validated.code, validated.stderr).toBe(1);
    const log = expectValidSarif(readFileSync(sarif, 'utf8'));
    const result = log.runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'checkout.get.shape');
    expect(result.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'traffic.ndjson' },
      region: { startLine: 2 },
    });
    const merged = await runCli([
      'merge',
      join(folder, 'r', 'results.json'),
      '--report-dir',
      join(folder, 'm'),
      '--sarif',
      join(folder, 'm.sarif'),
    ]);
    expect(merged.code, merged.stderr).toBe(1);
    const mergedLog = expectValidSarif(readFileSync(join(folder, 'm.sarif'), 'utf8'));
    expect(mergedLog.runs[0].results.map((r: { ruleId: string }) => r.ruleId)).toContain('checkout.get.shape');
  });

  it('proxy writes one when the session ends, pointing at the request that broke the rule', async () => {
    const service = await startReferenceService();
    try {
      const sarif = join(folder, 'proxy.sarif');
      const proxy = await startListeningCli(['proxy', '--target', service.baseUrl, '--sarif', sarif]);
      const answer = await setUpWithShortReturnUrl(proxy.url);
      await answer.text();
      const { code } = await proxy.stop();
      expect(code).toBe(1);
      const log = expectValidSarif(readFileSync(sarif, 'utf8'));
      const result = log.runs[0].results.find((r: { ruleId: string }) => r.ruleId === 'checkout.return-url.length');
      expect(result.level).toBe('error');
      expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe('operations/POST-checkout');
      expect(result.message.text).toMatch(/\nPOST http:\/\/127\.0\.0\.1:\d+\/v2\/checkout\//);
      expect(log.runs[0].invocations[0].exitCode).toBe(1);
    } finally {
      await service.close();
    }
  });

  it('run writes one that uploads as written, each finding at the operation it called', async () => {
    const service = await startReferenceService({ dialect: { honourAccept: false } });
    try {
      const sarif = join(folder, 'run.sarif');
      const run = await runCli([
        'run',
        '--base-url',
        service.baseUrl,
        '--report-dir',
        join(folder, 'rr'),
        '--sarif',
        sarif,
      ]);
      expect(run.code, run.stderr).toBe(1);
      const log = expectValidSarif(readFileSync(sarif, 'utf8'));
      const uris = log.runs[0].results.map(
        (r: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }) =>
          r.locations[0]?.physicalLocation.artifactLocation.uri,
      );
      expect(uris.length).toBeGreaterThan(0);
      for (const uri of uris) expect(uri).toMatch(/^operations\/[A-Z]+-[\w.-]+$/);
    } finally {
      await service.close();
    }
  });

  it('replay writes one too, its findings at the operations the new answers came from', async () => {
    const good = await startReferenceService();
    const broken = await startReferenceService({ dialect: { honourAccept: false } });
    try {
      const recording = join(folder, 'replayed.ndjson');
      const recorded = await runCli([
        'run',
        '--base-url',
        good.baseUrl,
        '--only',
        'checkout.',
        '--report-dir',
        join(folder, 'rec'),
        '--record',
        recording,
      ]);
      expect(recorded.code, recorded.stderr).toBe(0);
      const sarif = join(folder, 'replay.sarif');
      const replayed = await runCli([
        'replay',
        recording,
        '--target',
        broken.baseUrl,
        '--report-dir',
        join(folder, 'rp'),
        '--sarif',
        sarif,
      ]);
      expect(replayed.code, replayed.stderr).toBe(1);
      const log = expectValidSarif(readFileSync(sarif, 'utf8'));
      expect(log.runs[0].results.length).toBeGreaterThan(0);
    } finally {
      await Promise.all([good.close(), broken.close()]);
    }
  });
});
