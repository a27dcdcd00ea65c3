import { describe, expect, it } from 'vitest';
import { RULES, type RuleId } from '../../src/contract/rules.js';
import type { RunResult } from '../../src/findings/types.js';
import { markdownSummary } from '../../src/report/markdown-summary.js';
import { runResult } from '../../src/report/run-result.js';
import { emptyTally } from '../../src/validate/tally.js';
import { exitCodeOf, verdictsOf } from '../../src/validate/verdicts.js';

// The Markdown summary tells the story of the exit code: its headline, and a ❌ row for exactly
// the rules that fail the run.

const exchange = { method: 'POST', url: 'http://s.test/v2/checkout/c', requestHeaders: {}, status: 201 };

function result(broken: boolean): RunResult {
  const tally = emptyTally();
  Object.assign(tally.evidence, Object.fromEntries(RULES.map((r) => [r.id, { json: 1, xml: 1, any: 1 }])));
  if (broken) {
    delete tally.evidence['checkout.xml.tax-nil'];
    tally.broken['checkout.status.open'] = { json: 2 };
    tally.broken['checkout.payment-url'] = { json: 1 };
    tally.findings.push(
      { rule: 'checkout.status.open', format: 'json', side: 'response', message: 'Status "a|b"', exchange },
      { rule: 'checkout.payment-url', format: 'json', side: 'response', message: 'PaymentUrl is relative', exchange },
    );
  }
  const selected = new Set<RuleId>(RULES.map((r) => r.id));
  const context = { face: 'traffic' as const, selected, formats: ['json' as const, 'xml' as const], strict: false };
  tally.exchanges = 3;
  return runResult({
    target: 'http://s.test/v2/',
    started: Date.now(),
    context,
    rules: verdictsOf(tally, context),
    tally,
  });
}

describe('the Markdown summary', () => {
  it('heads with the verdict of the exit code, then a row for each rule failed, warned or untested', () => {
    const run = result(true);
    const text = markdownSummary(run);
    const failing = run.rules.filter((r) => r.failsRun).map((r) => r.id);
    expect(exitCodeOf(run.rules)).toBe(1);
    expect(text).toMatch(/^### print-conformance: ❌ 2 rules fail the run\n\n/);
    expect(text).toContain('; exit code 1\n');
    const rows = text.split('\n').filter((l) => l.startsWith('| `'));
    expect(
      rows
        .filter((r) => r.includes('❌'))
        .map((r) => /`([^`]+)`/.exec(r)?.[1])
        .sort(),
    ).toEqual(failing.sort());
    expect(text).toContain(
      '| `checkout.status.open` | must | ❌ failed | [json] response: Status "a\\|b"<br>POST http:\u200b//s.test/v2/checkout/c → 201 (and 1 more) |',
    );
    expect(text).toContain('| `checkout.payment-url` | should | ⚠️ warning | [json] response: PaymentUrl is relative');
    expect(text).toMatch(/\| `checkout\.xml\.tax-nil` \| must \| ❌ untested \| no exchange could test it/);
    expect(text).toMatch(/\nThe other rules: \d+ passed, \d+ observed, \d+ skipped\.\n$/);
  });

  it('says plainly when nothing failed, warned or went untested', () => {
    const text = markdownSummary(result(false));
    expect(text).toMatch(/^### print-conformance: ✅ /);
    expect(text).toContain('; exit code 0\n');
    expect(text).not.toContain('| Rule |');
    expect(text).toMatch(/No rule failed, warned or went untested: \d+ passed/);
  });

  it('keeps what came over the wire as text, and lists notes under their heading', () => {
    const run = result(true);
    const first = run.rules.find((r) => r.id === 'checkout.status.open')?.failures[0];
    if (first) first.message = 'Status "<b>Open</b>"';
    const text = markdownSummary(run, {
      title: 'print-conformance proxy',
      notes: { heading: 'Never reached the target', lines: ['1× 400 Host "<x>" is not a name of this proxy'] },
    });
    expect(text).toMatch(/^### print-conformance proxy: ❌ /);
    expect(text).toContain('Status "&lt;b&gt;Open&lt;/b&gt;"');
    expect(text).toContain('\n**Never reached the target**\n\n- 1× 400 Host "&lt;x&gt;" is not a name of this proxy\n');
    expect(markdownSummary(run, { notes: { heading: 'Never reached the target', lines: [] } })).not.toContain(
      'Never reached',
    );
  });
});
