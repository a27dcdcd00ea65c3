import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, type RuleId } from '../../src/contract/rules.js';
import type { RunResult } from '../../src/findings/types.js';
import { consoleSummary } from '../../src/report/console-summary.js';
import { githubAnnotations } from '../../src/report/github-annotations.js';
import { junitReport } from '../../src/report/junit-report.js';
import { runResult } from '../../src/report/run-result.js';
import { sarifReport } from '../../src/report/sarif-report.js';
import { writeReports } from '../../src/report/write-reports.js';
import { emptyTally } from '../../src/validate/tally.js';
import { exitCodeOf, verdictsOf } from '../../src/validate/verdicts.js';

// Every writer tells the story of the same verdicts: what fails the run fails in each of them.

const exchange = {
  method: 'POST',
  url: 'http://s.test/v2/checkout/c',
  requestHeaders: {},
  status: 201,
  responseBody: '{"status":"Pending"}',
};

function resultWith(strict: boolean): RunResult {
  const tally = emptyTally();
  const everything = Object.fromEntries(RULES.map((r) => [r.id, { json: 1, xml: 1, any: 1 }]));
  Object.assign(tally.evidence, everything);
  delete tally.evidence['checkout.xml.tax-nil'];
  tally.broken['checkout.status.open'] = { json: 1 };
  tally.broken['checkout.payment-url'] = { json: 1 };
  tally.findings.push(
    { rule: 'checkout.status.open', format: 'json', side: 'response', message: 'Status "Pending"', exchange },
    { rule: 'checkout.payment-url', format: 'json', side: 'response', message: 'PaymentUrl is relative', exchange },
  );
  const selected = new Set<RuleId>(RULES.map((r) => r.id));
  const context = { face: 'traffic' as const, selected, formats: ['json' as const, 'xml' as const], strict };
  const rules = verdictsOf(tally, context);
  return runResult({ target: 'http://s.test/v2/', started: Date.now() - 1200, context, rules, tally });
}

describe('report writers', () => {
  it('agree on what fails the run: console, JUnit, annotations and the exit code', () => {
    for (const strict of [false, true]) {
      const result = resultWith(strict);
      const failing = result.rules.filter((r) => r.failsRun).map((r) => r.id);
      expect(exitCodeOf(result.rules)).toBe(1);
      const junit = junitReport(result);
      const junitFailures = [...junit.matchAll(/name="([^"]+)" time="0"><failure/g)].map((m) => m[1]);
      const junitUntested = [...junit.matchAll(/name="([^"]+)" time="0"><skipped message="untested/g)].map((m) => m[1]);
      expect([...junitFailures, ...junitUntested].sort()).toEqual([...failing].sort());
      const text = consoleSummary(result);
      for (const id of failing) expect(text).toMatch(new RegExp(`(FAIL|UNTESTED)\\s+${id.replace(/\./g, '\\.')}`));
      const annotations = githubAnnotations(result);
      expect(annotations).toContain('::error title=print-conformance checkout.status.open::');
      expect(annotations).toContain(`::${strict ? 'error' : 'warning'} title=print-conformance checkout.payment-url::`);
    }
  });

  it('name the seed of a generated run in JUnit and SARIF too, with how to repeat it', () => {
    const result: RunResult = {
      ...resultWith(false),
      generated: { seed: 4242, ran: 20, asked: 20, interrupted: false, failures: [] },
    };
    const junit = junitReport(result);
    expect(junit).toContain('<property name="seed" value="4242"/>');
    // Where a CI test tab shows a failure, so is the way to repeat it.
    expect(junit).toMatch(/<failure [^>]*>[^<]*repeat it with --generate 20 --seed 4242<\/failure>/);
    const sarif = JSON.parse(sarifReport(result));
    expect(sarif.runs[0].properties.generated).toEqual({ seed: 4242, ran: 20, asked: 20 });
    expect(junitReport(resultWith(false))).not.toContain('seed');
  });

  it('shows a should rule broken without --strict as a warning, never a JUnit failure', () => {
    const junit = junitReport(resultWith(false));
    expect(junit).toMatch(/name="checkout\.payment-url" time="0"><system-out>warning: /);
    expect(consoleSummary(resultWith(false))).toMatch(/WARN\s+checkout\.payment-url/);
  });

  it('prints the failing request and what came back, and a last line of counts', () => {
    const text = consoleSummary(resultWith(false));
    expect(text).toContain('[json] response: Status "Pending"');
    expect(text).toContain('POST http://s.test/v2/checkout/c → 201');
    expect(text).toContain('answered: {"status":"Pending"}');
    expect(text.trim().split('\n').at(-1)).toMatch(
      /^\d+ passed, 1 failed, 1 warnings, 1 untested, \d+ skipped, \d+ observed — http:\/\/s\.test\/v2\/ in 1\.\d s$/,
    );
  });

  it('writes results.json, junit.xml and Allure results with one test per rule, failed never broken', () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-writers-'));
    try {
      const result = resultWith(false);
      writeReports(result, { reportDir: folder });
      const json = JSON.parse(readFileSync(join(folder, 'results.json'), 'utf8'));
      expect(json.summary).toEqual(result.summary);
      const allure = readdirSync(join(folder, 'allure-results'))
        .filter((name) => name.endsWith('-result.json'))
        .map((name) => JSON.parse(readFileSync(join(folder, 'allure-results', name), 'utf8')));
      expect(allure.length).toBe(RULES.length);
      const open = allure.find((t) => t.name === 'checkout.status.open');
      expect(open.status).toBe('failed');
      expect(allure.some((t) => t.status === 'broken')).toBe(false);
      expect(open.labels).toEqual(
        expect.arrayContaining([
          { name: 'rule', value: 'checkout.status.open' },
          { name: 'seed', value: '§3, §4.1 r2' },
        ]),
      );
      const names = new Set(allure.flatMap((t) => t.labels.map((l: { name: string }) => l.name)));
      for (const unwanted of ['host', 'thread', 'framework', 'language']) expect(names.has(unwanted)).toBe(false);
      expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
