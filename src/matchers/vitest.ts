import { type ExchangeLike, Judge } from './judge-pair.js';

// Matchers for vitest and jest (`expect.extend(conformanceMatchers)`): an exchange a test made
// (a fetch Request and its Response, or the recorded shape) is judged by the same core as the
// suite, the proxy and validate, and a failure names each rule broken and the place in the body.

export { type ExchangeLike, exchangeOf, Judge, type PairJudgement } from './judge-pair.js';

export interface SpeakOptions {
  /** Judge within a session (an order's URLs, a set-up before its GET): a Judge kept across calls. */
  judge?: Judge;
  /** Fail on should rules too. */
  strict?: boolean;
  /** Judge only these rule IDs or prefixes ("checkout.", "upload.file-type"). */
  only?: readonly string[];
}

interface MatcherResult {
  pass: boolean;
  message: () => string;
}

function selected(rule: string, only: readonly string[] | undefined): boolean {
  return !only || only.some((id) => rule === id || (id.endsWith('.') && rule.startsWith(id)));
}

/** Whether the exchange keeps every rule it could break (must rules; with strict, should rules too). */
async function toSpeakTheInterface(received: ExchangeLike, options: SpeakOptions = {}): Promise<MatcherResult> {
  const judged = await (options.judge ?? new Judge()).judge(received);
  const { method, url } = judged.exchange.request;
  const what = `${method} ${url}`;
  if (!judged.judged)
    // A verdict needs evidence: what no rule judged neither passes nor fails as the interface.
    return { pass: false, message: () => `${what} was judged by no rule: ${judged.why}` };
  const failing = judged.violations.filter(
    (v) => selected(v.rule, options.only) && (v.severity === 'must' || (options.strict && v.severity === 'should')),
  );
  const lines = failing.map(
    (v) => `  ${v.rule} (${v.severity}, ${v.side}${v.path ? ` at ${v.path}` : ''}): ${v.message}`,
  );
  return {
    pass: failing.length === 0,
    message: () =>
      failing.length === 0
        ? `expected ${what} to break a rule of the interface, but it kept every rule it could break`
        : `${what} breaks the interface:\n${lines.join('\n')}`,
  };
}

export const conformanceMatchers = { toSpeakTheInterface };
