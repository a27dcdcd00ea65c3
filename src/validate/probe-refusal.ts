import { type Exchange, header } from './exchange.js';
import type { Judgement, Tested } from './index.js';

// The suite marks the requests it sends in order to be refused (a ReturnUrl of 4 characters, an
// upload labelled text/plain) with this header. Traffic that holds them (the suite run behind the
// proxy, its own recording validated) judges the service's answers to them as usual, but never
// holds what the suite sent on purpose against the client.

export const PROBE_HEADER = 'print-conformance-probe';
export const REFUSAL_PROBE = 'refusal';

export function isRefusalProbe(exchange: Exchange): boolean {
  return header(exchange.request.headers, PROBE_HEADER)?.trim().toLowerCase() === REFUSAL_PROBE;
}

/**
 * The answers' side of each list of tested rules, kept by list: lists are shared by exchanges
 * alike in their facts (testedBy), and the tally makes its evidence plan once per list, so a new
 * list per probe made a new plan per probe. Kept lists are frozen, as testedBy's are.
 */
const answersTested = new WeakMap<readonly Tested[], readonly Tested[]>();

function answersSide(tested: readonly Tested[]): readonly Tested[] {
  let kept = answersTested.get(tested);
  if (!kept) {
    kept = tested.some((t) => t.side === 'request')
      ? Object.freeze(tested.filter((t) => t.side !== 'request'))
      : tested;
    answersTested.set(tested, kept);
  }
  return kept;
}

/** A judgement with the request's side left out: neither a finding nor evidence against the client. */
export function answersOnly(judgement: Judgement): Judgement {
  return {
    ...judgement,
    violations: judgement.violations.filter((v) => v.side !== 'request'),
    tested: answersSide(judgement.tested),
  };
}
