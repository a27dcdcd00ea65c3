import { describe, expect, it } from 'vitest';
import { noFacts } from '../../src/contract/exchange-facts.js';
import type { Judgement, Tested } from '../../src/validate/index.js';
import { answersOnly } from '../../src/validate/probe-refusal.js';

// A refusal probe is judged on its answer alone: what it sent on purpose is neither a finding nor
// evidence against the client. Probes alike share their list of tested rules, as exchanges alike
// do, so that the tally's evidence plan for it is made once.

const tested: readonly Tested[] = Object.freeze([
  { rule: 'checkout.return-url.length', side: 'request', format: 'json' },
  { rule: 'checkout.return-url.length', side: 'response', format: 'json' },
  { rule: 'http.no-server-error', side: 'response', format: 'json' },
] as Tested[]);

const judgement = (violations: Judgement['violations']): Judgement => ({
  violations,
  tested,
  facts: noFacts('POST checkout'),
});

describe('a refusal probe', () => {
  it('keeps only the answer’s side of what it broke and of what it could have broken', () => {
    const judged = answersOnly(
      judgement([
        { rule: 'checkout.return-url.length', severity: 'must', side: 'request', message: 'too short' },
        { rule: 'checkout.return-url.length', severity: 'must', side: 'response', message: 'accepted' },
      ]),
    );
    expect(judged.violations.map((v) => v.side)).toEqual(['response']);
    expect(judged.tested).toEqual(tested.filter((t) => t.side === 'response'));
  });

  it('gives probes alike the same list of tested rules, unchanged when it holds no request side', () => {
    const first = answersOnly(judgement([]));
    expect(answersOnly(judgement([])).tested).toBe(first.tested);
    expect(Object.isFrozen(first.tested)).toBe(true);
    expect(answersOnly(first).tested).toBe(first.tested);
  });
});
