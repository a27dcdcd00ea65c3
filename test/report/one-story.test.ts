import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, type RuleId } from '../../src/contract/rules.js';
import type { RunResult } from '../../src/findings/types.js';
import { consoleSummary } from '../../src/report/console-summary.js';
import { junitReport } from '../../src/report/junit-report.js';
import { markdownSummary } from '../../src/report/markdown-summary.js';
import { runResult } from '../../src/report/run-result.js';
import { writeReports } from '../../src/report/write-reports.js';
import { emptyTally } from '../../src/validate/tally.js';
import { verdictsOf } from '../../src/validate/verdicts.js';

// Every report counts the same verdicts: an observe rule is never "passed" in any of them, the
// Allure page spans the run as results.json does, and a finding that many exchanges showed is
// told once, its reproduction folded to the card.

const curl = `curl -X POST 'http://s.test/v2/checkout/c' -H 'Accept: application/json' -H 'Content-Type: application/json' --data-raw '{"returnUrl": "https://shop.test/a very long return path that goes on"}'`;
const exchange = { method: 'POST', url: 'http://s.test/v2/checkout/c', requestHeaders: {}, status: 201, curl };

function result(): RunResult {
  const tally = emptyTally();
  Object.assign(tally.evidence, Object.fromEntries(RULES.map((r) => [r.id, { json: 1, xml: 1, any: 1 }])));
  tally.broken['checkout.status.open'] = { json: 5 };
  for (let n = 0; n < 5; n += 1)
    tally.findings.push({
      rule: 'checkout.status.open',
      format: 'json',
      side: 'response',
      message: 'Status "Pending"',
      exchange,
    });
  const selected = new Set<RuleId>(RULES.map((r) => r.id));
  const context = { face: 'traffic' as const, selected, formats: ['json' as const, 'xml' as const], strict: false };
  return runResult({
    target: 'http://s.test/v2/',
    started: Date.now() - 6300,
    context,
    rules: verdictsOf(tally, context),
    tally,
  });
}

describe('every report tells one story', () => {
  const run = result();
  const observeRules = run.rules.filter((rule) => rule.status === 'observed').map((rule) => rule.id);

  it('counts observe rules as observed, never passed, in the console, Markdown and JUnit', () => {
    expect(observeRules.length).toBeGreaterThan(0);
    expect(run.summary.observed).toBe(observeRules.length);
    const counts = `${run.summary.passed} passed, 1 failed, 0 warnings, 0 untested, ${run.summary.skipped} skipped, ${observeRules.length} observed`;
    expect(consoleSummary(run)).toContain(counts);
    expect(markdownSummary(run)).toContain(counts);
    const junit = junitReport(run);
    for (const id of observeRules)
      expect(junit).toMatch(new RegExp(`name="${id.replace(/\./g, '\\.')}" time="0"><skipped message="observed: `));
    const passedCases = [...junit.matchAll(/<testcase [^>]*>(?!<failure|<skipped)/g)].length;
    expect(passedCases).toBe(run.summary.passed + run.summary.warnings);
  });

  it('files observe rules in Allure as unknown, spans the run, groups findings and folds the reproduction', () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-one-story-'));
    try {
      writeReports(run, { reportDir: folder });
      const dir = join(folder, 'allure-results');
      const tests = readdirSync(dir)
        .filter((name) => name.endsWith('-result.json'))
        .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
      const passed = tests.filter((t) => t.status === 'passed').length;
      expect(passed).toBe(run.summary.passed + run.summary.warnings);
      for (const id of observeRules) expect(tests.find((t) => t.name === id)?.status).toBe('unknown');
      const span = Math.max(...tests.map((t) => t.stop)) - Math.min(...tests.map((t) => t.start));
      expect(span).toBe(run.durationMs);
      const open = tests.find((t) => t.name === 'checkout.status.open');
      expect(open.attachments).toHaveLength(1);
      const message: string = open.statusDetails.message;
      expect(message.match(/Status "Pending"/g)).toHaveLength(1);
      expect(message).toContain('(5 exchanges)');
      for (const line of message.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
      // Folded between words only: joined again, the command is the one given.
      const reproduce = message.slice(message.indexOf('reproduce: ') + 'reproduce: '.length);
      expect(reproduce.replace(/ \\\n\s+/g, ' ')).toBe(curl);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
