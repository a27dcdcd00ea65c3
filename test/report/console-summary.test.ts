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

describe('failures in the console summary', () => {
  function repeated(count: number, curl: string): RunResult {
    const tally = emptyTally();
    Object.assign(tally.evidence, Object.fromEntries(RULES.map((r) => [r.id, { json: count, xml: 1, any: 1 }])));
    tally.broken['checkout.json.no-tax'] = { json: count + 1 };
    for (let index = 0; index < count; index += 1)
      tally.findings.push({
        rule: 'checkout.json.no-tax',
        format: 'json',
        side: 'response',
        message: 'a JSON checkout response has a tax member',
        exchange: {
          method: 'GET',
          url: `http://s.test/v2/checkout/c${index}`,
          requestHeaders: {},
          status: 200,
          curl: `${curl} c${index}`,
        },
      });
    tally.findings.push({
      rule: 'checkout.json.no-tax',
      format: 'json',
      side: 'response',
      message: 'tax is null',
      exchange: { method: 'GET', url: 'http://s.test/v2/checkout/other', requestHeaders: {}, status: 200 },
    });
    const selected = new Set<RuleId>(RULES.map((r) => r.id));
    const context = { face: 'traffic' as const, selected, formats: ['json' as const, 'xml' as const], strict: false };
    return runResult({
      target: 'http://s.test/v2/',
      started: Date.now(),
      context,
      rules: verdictsOf(tally, context),
      tally,
    });
  }

  it('tells a message repeated by many exchanges once, with their count and one reproduction', () => {
    const text = consoleSummary(repeated(10, "curl -X GET 'http://s.test/v2/checkout'"));
    expect(text.match(/a JSON checkout response has a tax member/g)).toHaveLength(1);
    expect(text).toContain('[json] response: a JSON checkout response has a tax member (10 exchanges)');
    expect(text.match(/reproduce: /g)).toHaveLength(1);
    expect(text).toContain('GET http://s.test/v2/checkout/c0 → 200');
    expect(text).not.toContain('checkout/c1 ');
    // The other message is told too, and nothing is left to "more".
    expect(text).toContain('[json] response: tax is null\n');
    expect(text).not.toMatch(/… and \d+ more/);
  });

  it('shortens a long reproduction to a terminal width, and keeps it whole elsewhere', () => {
    const curl = `curl -X POST --data '${'x'.repeat(1200)}'`;
    const atTerminal = consoleSummary(repeated(2, curl), { width: 100 });
    const line = atTerminal.split('\n').find((l) => l.includes('reproduce: ')) as string;
    expect(line.length).toBeLessThanOrEqual(100);
    expect(line).toMatch(/… \(\d+ more characters in results\.json\)$/);
    const piped = consoleSummary(repeated(2, curl));
    expect(piped).toContain(`reproduce: ${curl} c0`);
  });
});
