import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RuleId } from '../../src/contract/rules.js';
import type { RunResult } from '../../src/findings/types.js';
import { consoleSummary } from '../../src/report/console-summary.js';
import { writeJunitReport } from '../../src/report/junit-report.js';
import { runResult } from '../../src/report/run-result.js';
import { emptyTally } from '../../src/validate/tally.js';
import { verdictsOf } from '../../src/validate/verdicts.js';

const exchange = {
  method: 'POST',
  url: 'http://s.test/v2/checkout/c',
  requestHeaders: {},
  status: 201,
  responseBody: '{\n  "amount": "12",\n  "status": "Open"\n}',
  excerpt: '{\n  "amount": "12",\n…',
  curl: `curl -H 'accept: application/json' --data-binary '{}' http://s.test/v2/checkout/c`,
};

function result(withDetail: boolean): RunResult {
  const shown = withDetail ? exchange : { ...exchange, excerpt: undefined, curl: undefined };
  const tally = emptyTally();
  tally.evidence['checkout.response.schema'] = { json: 1 };
  tally.broken['checkout.response.schema'] = { json: 1 };
  tally.findings.push({
    rule: 'checkout.response.schema',
    format: 'json',
    side: 'response',
    message: '`amount` is a string ("12")',
    exchange: shown,
  });
  const selected = new Set<RuleId>(['checkout.response.schema']);
  const context = { face: 'traffic' as const, selected, formats: ['json' as const], strict: false };
  return runResult({
    target: 'http://s.test/v2/',
    started: Date.now(),
    context,
    rules: verdictsOf(tally, context),
    tally,
  });
}

describe('failure detail in the text reports', () => {
  it('prints the excerpt instead of the answer’s start, and the command reproducing the request', () => {
    const text = consoleSummary(result(true));
    expect(text).toContain(['          body: {', '                  "amount": "12",', '                …'].join('\n'));
    expect(text).toContain(`          reproduce: ${exchange.curl}`);
    expect(text).not.toContain('answered:');
    const without = consoleSummary(result(false));
    expect(without).toContain('answered: { "amount": "12", "status": "Open" }');
    expect(without).not.toContain('reproduce:');
  });

  it('writes them into the JUnit failure text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'junit-detail-'));
    try {
      const file = join(dir, 'junit.xml');
      writeJunitReport(result(true), file);
      const xml = readFileSync(file, 'utf8');
      expect(xml).toContain('\n  body: {\n          &quot;amount&quot;: &quot;12&quot;,\n        …');
      expect(xml).toContain(`\n  reproduce: curl -H &apos;accept: application/json&apos;`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
