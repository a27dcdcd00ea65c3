import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, type RuleId } from '../../src/contract/rules.js';
import type { ClientTestVerdict } from '../../src/findings/types.js';
import { writeAllureResults } from '../../src/report/allure-report.js';
import { junitReport } from '../../src/report/junit-report.js';
import { runResult } from '../../src/report/run-result.js';
import { emptyTally } from '../../src/validate/tally.js';
import { verdictsOf } from '../../src/validate/verdicts.js';

// A session whose traffic named the client's own tests: JUnit and Allure hold one case per client
// test beside the rules, failed where its exchanges broke a rule.

const clientTests: ClientTestVerdict[] = [
  { name: 'sets up a checkout', exchanges: 2, judged: 1, passed: true, failed: [], warnings: [] },
  {
    name: 'short <ReturnUrl>',
    exchanges: 2,
    judged: 1,
    passed: false,
    failed: [{ rule: 'checkout.return-url.length', severity: 'must', count: 1, messages: ['request: too short'] }],
    warnings: [],
  },
  // It sent only an order: nothing of the interface, so nothing shown either way.
  { name: 'places an order', exchanges: 1, judged: 0, passed: true, failed: [], warnings: [] },
];

function result() {
  const tally = emptyTally();
  const selected = new Set<RuleId>(RULES.map((r) => r.id));
  const context = { face: 'traffic' as const, selected, formats: ['json' as const], strict: false, auto: true };
  return runResult({
    target: 'http://s.test/v2/',
    started: Date.now(),
    context,
    rules: verdictsOf(tally, context),
    tally,
    clientTests,
  });
}

describe('client tests in the reports', () => {
  it('are one JUnit case each, the one that broke a rule failed', () => {
    const junit = junitReport(result());
    const suite = /<testsuite name="client tests"[^>]*>([\s\S]*?)<\/testsuite>/.exec(junit);
    expect(suite?.[0]).toMatch(/tests="3" failures="1" errors="0" skipped="1"/);
    const cases = suite?.[1]?.match(/<testcase [^>]*>/g) ?? [];
    expect(cases).toEqual([
      '<testcase classname="client-tests" name="sets up a checkout" time="0">',
      '<testcase classname="client-tests" name="short &lt;ReturnUrl&gt;" time="0">',
      '<testcase classname="client-tests" name="places an order" time="0">',
    ]);
    expect(suite?.[1]).toMatch(/<failure message="broke checkout\.return-url\.length" type="must">/);
    expect(suite?.[1]).toMatch(
      /name="places an order" time="0"><skipped message="no exchange of the interface \(1 exchanges, 0 of the interface\)"\/>/,
    );
  });

  it('are kept under their class when named by class and method', () => {
    const base = result();
    const named = (name: string) => ({ name, exchanges: 1, judged: 1, passed: true, failed: [], warnings: [] });
    const junit = junitReport({
      ...base,
      clientTests: [named('ShopTest::testCheckout'), named('App\\AdminTest::testCheckout')],
    });
    expect(junit.match(/<testcase classname="[^"]*" name="testCheckout"/g)).toEqual([
      '<testcase classname="ShopTest" name="testCheckout"',
      '<testcase classname="App\\AdminTest" name="testCheckout"',
    ]);
  });

  it('are one Allure test each', () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-client-allure-'));
    try {
      writeAllureResults(result(), folder);
      const tests = readdirSync(folder)
        .filter((name) => name.endsWith('-result.json'))
        .map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as { fullName: string; status: string })
        .filter((test) => test.fullName.startsWith('client test: '));
      expect(tests.map((test) => [test.fullName, test.status]).sort()).toEqual([
        ['client test: places an order', 'skipped'],
        ['client test: sets up a checkout', 'passed'],
        ['client test: short <ReturnUrl>', 'failed'],
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
