import { describe, expect, it } from 'vitest';
import { noFacts } from '../../src/contract/exchange-facts.js';
import type { RuleId } from '../../src/contract/rules.js';
import { RULES } from '../../src/contract/rules.js';
import type { RuleResult } from '../../src/findings/types.js';
import { emptyTally, type TallyData } from '../../src/validate/tally.js';
import { exitCodeOf, summaryOf, type VerdictContext, verdictOf, verdictsOf } from '../../src/validate/verdicts.js';

// The one status model: evidence, failures and selection in; one verdict per rule out.

const ALL = new Set(RULES.map((rule) => rule.id));
const suite: VerdictContext = { face: 'suite', selected: ALL, formats: ['json', 'xml'], strict: false };
const traffic: VerdictContext = { ...suite, face: 'traffic' };

const exchange = { method: 'POST', url: 'http://s.test/v2/checkout/c', requestHeaders: {}, status: 201 };

function tally(evidence: [RuleId, 'json' | 'xml' | 'any', number][], broken: [RuleId, 'json' | 'xml' | 'any'][] = []) {
  const data: TallyData = emptyTally();
  for (const [rule, format, count] of evidence) data.evidence[rule] = { ...data.evidence[rule], [format]: count };
  for (const [rule, format] of broken) {
    data.broken[rule] = { ...data.broken[rule], [format]: 1 };
    data.findings.push({ rule, format, side: 'response', message: `${rule} broken`, exchange });
  }
  data.answers['POST checkout'] = { '400 JSON': 6 };
  return data;
}

const verdict = (id: RuleId, data: TallyData, context = suite) =>
  verdictOf(RULES.find((rule) => rule.id === id) as (typeof RULES)[number], data, context);

describe('verdicts', () => {
  it('passes a rule only on evidence, and leaves one without any untested, with the reason', () => {
    const data = tally([['checkout.status.open', 'json', 2]]);
    expect(verdict('checkout.status.open', data, { ...suite, formats: ['json'] })).toMatchObject({
      status: 'passed',
      evidence: 2,
      failsRun: false,
    });
    const untested = verdict('checkout.xml.tax-nil', data);
    expect(untested).toMatchObject({ status: 'untested', evidence: 0, failsRun: true });
    expect(untested.reason).toContain('it needs an accepted XML checkout answer');
    expect(untested.reason).toContain('every POST checkout (6) was answered 400 JSON');
  });

  it('in the suite, needs evidence in every format it probed; in traffic, in one it carried', () => {
    const data = tally([['checkout.status.open', 'json', 2]]);
    expect(verdict('checkout.status.open', data).status).toBe('untested');
    expect(verdict('checkout.status.open', data).reason).toContain('in XML');
    expect(verdict('checkout.status.open', data, traffic).status).toBe('passed');
  });

  it('fails a broken must rule, warns of a should rule, and fails both with --strict', () => {
    const data = tally(
      [
        ['checkout.status.open', 'json', 1],
        ['checkout.payment-url', 'json', 1],
      ],
      [
        ['checkout.status.open', 'json'],
        ['checkout.payment-url', 'json'],
      ],
    );
    const lenient = verdictsOf(data, { ...traffic, formats: ['json'] });
    const byId = new Map(lenient.map((r) => [r.id, r]));
    expect(byId.get('checkout.status.open')).toMatchObject({ status: 'failed', failsRun: true });
    expect(byId.get('checkout.payment-url')).toMatchObject({ status: 'failed', failsRun: false });
    expect(summaryOf(lenient)).toMatchObject({ failed: 1, warnings: 1 });
    expect(verdict('checkout.payment-url', data, { ...traffic, strict: true }).failsRun).toBe(true);
  });

  it('never lets an observe rule change the exit code, with or without --strict', () => {
    const data = tally([['checkout.response.extra', 'json', 3]], [['checkout.response.extra', 'json']]);
    for (const strict of [false, true]) {
      const result = verdict('checkout.response.extra', data, { ...traffic, strict });
      expect(result).toMatchObject({ status: 'observed', failsRun: false });
      expect(result.observed).toEqual(['checkout.response.extra broken']);
    }
  });

  it('skips what is not selected, not judgeable by the face, needs writes or an option', () => {
    const data = tally([]);
    const only = new Set<RuleId>(['checkout.echo']);
    expect(verdict('checkout.status.open', data, { ...suite, selected: only }).reason).toBe(
      'not selected (--only/--skip)',
    );
    expect(verdict('upload.content-sniff', data).reason).toBe('judged in traffic only (proxy, validate)');
    expect(verdict('upload.raw', data, traffic).reason).toBe('judged by the suite only (run)');
    expect(verdict('checkout.echo', data, { ...suite, readOnly: true }).reason).toBe('needs writes (--read-only)');
    expect(verdict('observe.large-upload', data).reason).toBe('needs --upload-size');
    expect(verdict('checkout.xml.tax-nil', data, { ...suite, formats: ['json'] }).reason).toBe(
      'XML not selected (--format)',
    );
  });

  it('exits 1 exactly when a verdict fails the run', () => {
    const rule = (failsRun: boolean) => ({ failsRun }) as RuleResult;
    expect(exitCodeOf([rule(false), rule(false)])).toBe(0);
    expect(exitCodeOf([rule(false), rule(true)])).toBe(1);
  });

  it('counts evidence from the facts the catalog names', () => {
    // Kept honest: a rule whose evidence never matches any facts could never pass.
    const facts = { ...noFacts('POST checkout'), status: 201, accepted: true, responseDocument: 'xml' as const };
    expect(RULES.find((r) => r.id === 'checkout.xml.tax-nil')?.evidence.response?.(facts)).toBe(true);
    expect(RULES.find((r) => r.id === 'checkout.json.no-tax')?.evidence.response?.(facts)).toBe(false);
  });
});

describe('traffic judged on what it used (auto)', () => {
  const auto: VerdictContext = { ...traffic, auto: true };

  it('never skips a rule the traffic broke, though it called none of the operations', () => {
    // Every request built by the client (POST checkout without a code, files/{code}/content):
    // no operation of the interface was called, and each request broke client.given-urls.
    const data = tally([], [['client.given-urls', 'json']]);
    data.answers = {};
    expect(verdict('client.given-urls', data, auto)).toMatchObject({ status: 'failed', failsRun: true });
    expect(verdict('checkout.json.casing', data, auto)).toMatchObject({ status: 'skipped' });
  });

  it('skips rules of formats and operations the traffic never used, with the reason', () => {
    const data = tally([['checkout.json.casing', 'json', 2]]);
    data.traffic.used['POST checkout'] = { json: 2 };
    expect(verdict('checkout.xml.casing', data, auto)).toMatchObject({
      status: 'skipped',
      reason: 'not exercised: this traffic holds no XML',
    });
    expect(verdict('upload.response.schema', data, auto)).toMatchObject({
      status: 'skipped',
      reason: 'not exercised: this traffic never called POST files/{code}',
    });
    expect(verdict('checkout.json.casing', data, auto).status).toBe('passed');
    // Asked for by name (no auto), the same rules are required.
    expect(verdict('checkout.xml.casing', data, traffic).status).toBe('untested');
  });

  it('never passes a rule of an operation that was called in no format and never answered', () => {
    const data = tally([]);
    data.traffic.used['GET checkout'] = {};
    data.answers['GET checkout'] = { 'no answer': 1 };
    expect(verdict('checkout.get.shape', data, auto)).toMatchObject({ status: 'untested', failsRun: true });
  });

  it('skips client.given-urls without order answers, unless a request of another shape tested it', () => {
    const data = tally([]);
    data.traffic.used['POST checkout'] = { json: 1 };
    expect(verdict('client.given-urls', data, auto).status).toBe('skipped');
    data.evidence['client.given-urls'] = { any: 1 };
    expect(verdict('client.given-urls', data, auto).status).toBe('passed');
  });
});
