import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, type RuleId } from '../../src/contract/rules.js';
import { markdownSummary } from '../../src/report/markdown-summary.js';
import { codeSpan } from '../../src/report/markdown-text.js';
import { runResult } from '../../src/report/run-result.js';
import { sarifReport } from '../../src/report/sarif-report.js';
import { emptyTally } from '../../src/validate/tally.js';
import { verdictsOf } from '../../src/validate/verdicts.js';
import { runCli } from '../helpers/cli.js';

// Traffic in a Markdown summary (validate, the proxy, merge: one writer) and in SARIF message
// texts is inert text: no image or link to a host the service chose, no markup, no code span or
// table cell broken out of.

const HOSTILE =
  '![pixel](https://evil.test/p.png) [click](https://evil.test/x) <img src=x> **bold** www.evil.test mail@evil.test https://evil.test/bare';

/** What a Markdown renderer (GitHub's, with its bare-URL links) would make a link or image of. */
function expectInertMarkdown(text: string) {
  expect(text).not.toMatch(/(?<!\\)\]\(/);
  expect(text).not.toMatch(/(?<!\\)!(?<!\\)\[/);
  expect(text).not.toMatch(/https?:\/\//);
  expect(text).not.toMatch(/\bwww\./);
  expect(text).not.toMatch(/@evil/);
  expect(text).not.toContain('<img');
  expect(text).not.toMatch(/(?<!\\)\*\*bold/);
}

function hostileResult(target: string) {
  const tally = emptyTally();
  Object.assign(tally.evidence, Object.fromEntries(RULES.map((r) => [r.id, { json: 1, xml: 1, any: 1 }])));
  tally.broken['checkout.status.open'] = { json: 1 };
  tally.findings.push({
    rule: 'checkout.status.open',
    format: 'json',
    side: 'response',
    message: `Status ${HOSTILE}`,
    exchange: {
      method: 'POST',
      url: `https://evil.test/v2/checkout/[x](https://evil.test)`,
      requestHeaders: {},
      status: 201,
    },
  });
  const selected = new Set<RuleId>(RULES.map((r) => r.id));
  const context = { face: 'traffic' as const, selected, formats: ['json' as const, 'xml' as const], strict: false };
  tally.exchanges = 1;
  return runResult({ target, started: Date.now(), context, rules: verdictsOf(tally, context), tally });
}

describe('traffic in Markdown and SARIF', () => {
  it('makes no link, image or markup in the Markdown summary, and no code span is left early', () => {
    const text = markdownSummary(hostileResult('http://s.test/v2/`](https://evil.test) `'));
    expect(text).toContain('evil');
    expectInertMarkdown(text.replace(/`+ ?http:\/\/s\.test\/v2\/`.*?` ?`+/, 'TARGET'));
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`a')).toBe('`` `a ``');
  });

  it('escapes embedded links in SARIF message texts', () => {
    const sarif = JSON.parse(sarifReport(hostileResult('http://s.test/v2/')));
    const texts: string[] = [];
    for (const result of sarif.runs[0].results) {
      texts.push(result.message.text);
      for (const location of result.locations) texts.push(location.message.text);
    }
    expect(texts.join('\n')).toContain('evil');
    for (const text of texts) expect(text).not.toMatch(/(?<!\\)\[[^\]]*(?<!\\)\]\(/);
  });

  it('validate writes a summary of hostile traffic as inert text', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-inert-'));
    try {
      const body = JSON.stringify({ amount: HOSTILE, status: HOSTILE });
      const recording = join(folder, 'hostile.ndjson');
      writeFileSync(
        recording,
        `${JSON.stringify({
          request: { method: 'GET', url: 'http://s.test/v2/checkout/a', headers: { accept: 'application/json' } },
          response: {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: { text: body, size: body.length },
          },
        })}\n`,
      );
      const summary = join(folder, 'summary.md');
      const result = await runCli(['validate', recording, '--report-dir', join(folder, 'r'), '--summary-md', summary]);
      expect(result.code, result.stderr).toBe(1);
      const text = readFileSync(summary, 'utf8');
      expect(text).toContain('evil');
      expectInertMarkdown(text.replace(/`http:\/\/s\.test\/v2\/`/, 'TARGET'));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
