import { describe, expect, it } from 'vitest';
import { RULES, type RuleId } from '../../src/contract/rules.js';
import { runResult } from '../../src/report/run-result.js';
import { summaryMarkdown } from '../../src/report/summary-markdown.js';
import { emptyTally } from '../../src/validate/tally.js';
import { verdictsOf } from '../../src/validate/verdicts.js';

// The Markdown summary (proxy --summary-md) is made from the verdicts alone: what fails the run
// first, each with what showed it, and nothing that came over the wire read as markup.

function result(broken: boolean) {
  const tally = emptyTally();
  Object.assign(tally.evidence, Object.fromEntries(RULES.map((r) => [r.id, { json: 1, xml: 1, any: 1 }])));
  delete tally.evidence['checkout.xml.tax-nil'];
  if (broken) {
    tally.broken['checkout.return-url.length'] = { json: 3 };
    tally.findings.push({
      rule: 'checkout.return-url.length',
      format: 'json',
      side: 'request',
      message: 'ReturnUrl has 513 UTF-16 code units | <b>allowed</b> 5 to 512',
      exchange: { method: 'POST', url: 'http://s.test/v2/checkout/c', requestHeaders: {}, status: 400 },
    });
  }
  const context = {
    face: 'traffic' as const,
    selected: new Set<RuleId>(RULES.map((r) => r.id)),
    formats: ['json' as const, 'xml' as const],
    strict: false,
  };
  return runResult({
    target: 'http://s.test/v2/',
    started: Date.now(),
    context,
    rules: verdictsOf(tally, context),
    tally,
  });
}

describe('the Markdown summary', () => {
  it('lists what fails the run first, with what showed it, escaped', () => {
    const text = summaryMarkdown(result(true), {
      title: 'proxy: 4 exchanges',
      notes: { heading: 'Never reached the target', lines: ['1× 403 Host "<x>" is not a name of this proxy'] },
    });
    const rows = text.split('\n').filter((line) => line.startsWith('| '));
    expect(rows[0]).toBe('| Verdict | Rule | Severity | What showed it |');
    expect(rows[1]).toBe(
      '| FAIL | `checkout.return-url.length` | must | request: ReturnUrl has 513 UTF-16 code units \\| &lt;b&gt;allowed&lt;/b&gt; 5 to 512<br>`POST http://s.test/v2/checkout/c → 400` (and 2 more) |',
    );
    expect(rows[2]).toMatch(/^\| UNTESTED \| `checkout\.xml\.tax-nil` \| must \| untested: no exchange could test it/);
    expect(text).toMatch(/^### proxy: 4 exchanges\n\n\*\*Failed\*\*: \d+ passed, 1 failed, 0 warnings, 1 untested/);
    expect(text).toContain('\n**Never reached the target**\n\n- 1× 403 Host "&lt;x&gt;" is not a name of this proxy\n');
  });

  it('says Failed for an untested must rule alone, and leaves out an empty list of notes', () => {
    const text = summaryMarkdown(result(false), {
      title: 't',
      notes: { heading: 'Never reached the target', lines: [] },
    });
    expect(text).toMatch(/\*\*Failed\*\*: \d+ passed, 0 failed, 0 warnings, 1 untested/);
    expect(text).not.toContain('Never reached');
  });
});
