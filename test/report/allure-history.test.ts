import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES, type RuleId } from '../../src/contract/rules.js';
import type { RunResult } from '../../src/findings/types.js';
import { allureExecutor } from '../../src/report/allure-environment.js';
import { writeAllureResults } from '../../src/report/allure-report.js';
import { runResult } from '../../src/report/run-result.js';
import type { Tested } from '../../src/validate/index.js';
import { emptyTally, Tally } from '../../src/validate/tally.js';
import { verdictsOf } from '../../src/validate/verdicts.js';

// Allure keeps a test's History, trends and "new failed" marks under its historyId: a rule must keep
// one across runs whatever its verdict, and each test must last its own time, not the run's.

interface AllureTest {
  name: string;
  status: string;
  historyId: string;
  testCaseId: string;
  parameters: { name: string; value: string }[];
  steps: { name: string; status: string; start: number; stop: number }[];
  start: number;
  stop: number;
}

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-allure-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const exchange = { method: 'POST', url: 'http://s.test/v2/checkout/c', requestHeaders: {}, status: 201 };

function resultOf(broken: boolean): RunResult {
  const tally = emptyTally();
  Object.assign(tally.evidence, Object.fromEntries(RULES.map((r) => [r.id, { json: 10, xml: 10, any: 10 }])));
  tally.time = { 'checkout.status.open': 1234 };
  if (broken) {
    tally.broken['checkout.status.open'] = { json: 10 };
    tally.findings.push({ rule: 'checkout.status.open', format: 'json', side: 'response', message: 'x', exchange });
  }
  const selected = new Set<RuleId>(RULES.map((r) => r.id));
  const context = { face: 'traffic' as const, selected, formats: ['json' as const, 'xml' as const], strict: false };
  return runResult({
    target: 'http://s.test/v2/',
    started: Date.now() - 60_000,
    context,
    rules: verdictsOf(tally, context),
    tally,
  });
}

function written(dir: string): AllureTest[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('-result.json'))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
}

describe('Allure results across runs', () => {
  it('keep the same historyId and testCaseId for a rule whether it failed or passed', () => {
    writeAllureResults(resultOf(true), join(folder, 'failing'));
    writeAllureResults(resultOf(false), join(folder, 'passing'));
    const failing = written(join(folder, 'failing')).find((t) => t.name === 'checkout.status.open') as AllureTest;
    const passing = written(join(folder, 'passing')).find((t) => t.name === 'checkout.status.open') as AllureTest;
    expect([failing.status, passing.status]).toEqual(['failed', 'passed']);
    expect(failing.historyId).toBe(passing.historyId);
    expect(failing.testCaseId).toBe(passing.testCaseId);
    // Every rule has an identity of its own.
    expect(new Set(written(join(folder, 'passing')).map((t) => t.historyId)).size).toBe(RULES.length);
  });

  it('carry no verdict in a parameter; the verdict per format is a step', () => {
    const failing = written(join(folder, 'failing')).find((t) => t.name === 'checkout.status.open') as AllureTest;
    for (const parameter of failing.parameters ?? []) expect(parameter.value).not.toMatch(/failed|passed|exchanges/);
    expect(failing.steps.map((s) => [s.name, s.status])).toEqual(
      expect.arrayContaining([
        ['json: failed (10 exchanges, 10 broke it)', 'failed'],
        ['xml: passed (10 exchanges)', 'passed'],
      ]),
    );
  });

  it('span the run, as the page header tells it, with steps as long as the exchanges that tested the rule', () => {
    const tests = written(join(folder, 'failing'));
    const spans = new Set(tests.map((test) => test.stop - test.start));
    expect(spans.size).toBe(1);
    expect([...spans][0]).toBeGreaterThanOrEqual(60_000);
    const open = tests.find((t) => t.name === 'checkout.status.open') as AllureTest;
    for (const step of open.steps ?? []) expect(step.stop - step.start).toBe(1234);
    const other = tests.find((t) => t.name === 'checkout.json.casing') as AllureTest;
    for (const step of other.steps ?? []) expect(step.stop - step.start).toBe(0);
  });

  it('name the target and the tool version for Allure 2 and 3', () => {
    const dir = join(folder, 'failing');
    const properties = readFileSync(join(dir, 'environment.properties'), 'utf8');
    expect(properties).toMatch(/^target=http\\?:\/\/s\.test\/v2\/$/m);
    expect(properties).toMatch(/^tool=print-conformance \d+\.\d+\.\d+/m);
    const executor = JSON.parse(readFileSync(join(dir, 'executor.json'), 'utf8'));
    expect(executor.reportName).toMatch(/^print-conformance \d+\.\d+\.\d+: http:\/\/s\.test\/v2\/$/);
  });

  it('link the report to its CI build', () => {
    const executor = allureExecutor(resultOf(false), {
      GITHUB_ACTIONS: 'true',
      GITHUB_RUN_ID: '42',
      GITHUB_RUN_NUMBER: '7',
      GITHUB_REPOSITORY: 'team/app',
      GITHUB_WORKFLOW: 'conformance',
    });
    expect(executor).toMatchObject({
      type: 'github',
      buildOrder: 7,
      buildUrl: 'https://github.com/team/app/actions/runs/42',
    });
  });

  it('sum the time of the exchanges that tested each rule, each exchange once', () => {
    const tally = new Tally({ summarise: () => exchange });
    const facts = { kind: 'POST checkout' } as never;
    const timed = { request: { method: 'POST', url: 'http://s.test/v2/checkout/c', headers: {} }, durationMs: 30 };
    const tested: Tested[] = [
      { rule: 'checkout.json.casing', side: 'request', format: 'json' },
      { rule: 'checkout.json.casing', side: 'response', format: 'json' },
    ];
    tally.record(timed as never, { violations: [], tested, facts });
    tally.record({ ...timed, durationMs: 12 } as never, { violations: [], tested, facts });
    expect(tally.data.time?.['checkout.json.casing']).toBe(42);
  });
});
