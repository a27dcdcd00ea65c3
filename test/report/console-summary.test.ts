import { describe, expect, it } from 'vitest';
import { RULES, type RuleId } from '../../src/contract/rules.js';
import type { RunResult } from '../../src/findings/types.js';
import { colourWanted } from '../../src/report/colour.js';
import { consoleSummary } from '../../src/report/console-summary.js';
import { profileLines } from '../../src/report/profile-lines.js';
import { runResult } from '../../src/report/run-result.js';
import { emptyTally } from '../../src/validate/tally.js';
import { verdictsOf } from '../../src/validate/verdicts.js';

// The table a person reads: verdict words in colour at a terminal only, a reason on every rule
// not judged, and the service profile as lines, not JSON.

const ESCAPE = '\u001b[';

function result(): RunResult {
  const tally = emptyTally();
  Object.assign(tally.evidence, Object.fromEntries(RULES.map((r) => [r.id, { json: 1, xml: 1, any: 1 }])));
  delete tally.evidence['checkout.xml.tax-nil'];
  tally.broken['checkout.status.open'] = { json: 1 };
  tally.findings.push({
    rule: 'checkout.status.open',
    format: 'json',
    side: 'response',
    message: 'Status "Pending"',
    exchange: { method: 'POST', url: 'http://s.test/v2/checkout/c', requestHeaders: {}, status: 201 },
  });
  tally.observations['observe.status-codes'] = {
    'POST checkout refused': ['400', '422'],
    'POST checkout accepted': ['201 + Location'],
  };
  tally.observations['observe.default-format'] = { 'GET checkout without Accept': 'JSON' };
  const selected = new Set<RuleId>(RULES.map((r) => r.id));
  const context = { face: 'suite' as const, selected, formats: ['json' as const, 'xml' as const], strict: false };
  const full = { ...context, readOnly: false, uploadSize: false };
  tally.exchanges = 2;
  return runResult({
    target: 'http://s.test/v2/',
    started: Date.now(),
    context: full,
    rules: verdictsOf(tally, full),
    tally,
  });
}

describe('the console summary', () => {
  it('colours the verdict words only when asked, and the plain text stays the same', () => {
    const plain = consoleSummary(result());
    const coloured = consoleSummary(result(), { colour: true });
    expect(plain).not.toContain(ESCAPE);
    expect(coloured).toContain(`${ESCAPE}31mFAIL     ${ESCAPE}39m checkout.status.open`);
    expect(coloured).toContain(`${ESCAPE}32mpass     ${ESCAPE}39m checkout.echo`);
    expect(coloured.replace(new RegExp(`${ESCAPE.replace('[', '\\[')}\\d+m`, 'g'), '')).toBe(plain);
  });

  it('gives every rule it did not judge a reason', () => {
    const text = consoleSummary(result());
    for (const line of text.split('\n').filter((l) => /^(skip|untested|UNTESTED) /.test(l)))
      expect(line, line).toMatch(/(must|should|observe)\s+\S+/);
  });

  it('prints the service profile as readable lines, not JSON', () => {
    const text = consoleSummary(result());
    const profile = text.slice(text.indexOf('Service profile'));
    expect(profile).toContain('  observe.status-codes\n    POST checkout refused: 400; 422\n');
    expect(profile).toContain('    GET checkout without Accept: JSON\n');
    expect(profile).not.toMatch(/[{["]/);
    expect(profileLines({ 'observe.large-upload': { '200 bytes': { status: 413, seconds: 1.5 } } })).toEqual([
      '  observe.large-upload',
      '    200 bytes: status 413, seconds 1.5',
    ]);
  });
});

describe('colour', () => {
  it('is on at a terminal, off in a pipe, and FORCE_COLOR/NO_COLOR/TERM=dumb have their say', () => {
    const tty = { isTTY: true };
    const pipe = { isTTY: false };
    expect(colourWanted(tty, {})).toBe(true);
    expect(colourWanted(pipe, {})).toBe(false);
    expect(colourWanted(tty, { NO_COLOR: '1' })).toBe(false);
    expect(colourWanted(tty, { NO_COLOR: '' })).toBe(true);
    expect(colourWanted(tty, { TERM: 'dumb' })).toBe(false);
    expect(colourWanted(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourWanted(pipe, { FORCE_COLOR: '' })).toBe(true);
    expect(colourWanted(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(colourWanted(tty, { FORCE_COLOR: 'false' })).toBe(false);
  });
});
