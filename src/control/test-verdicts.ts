import { ownText } from '../findings/kept-copy.js';
import type { ClientTestFailure, ClientTestVerdict } from '../findings/types.js';
import type { Violation } from '../validate/exchange.js';

// Verdicts per client test: the exchanges a test sent (marked by the print-conformance-test header,
// or sent after the test was named through the control API), and the rules they broke, so that a
// PHPUnit, xUnit or vitest test can fail on its own exchanges alone.

export type RuleFailure = ClientTestFailure;
export type TestVerdict = ClientTestVerdict;

const MESSAGES_KEPT = 5;
/** Tests kept; past it the oldest test is forgotten (a session of this many tests is long done with it). */
const TESTS_KEPT = 10_000;

interface Tested {
  exchanges: number;
  judged: number;
  rules: Map<string, RuleFailure>;
}

export class TestVerdicts {
  private readonly tests = new Map<string, Tested>();

  constructor(private readonly strict = false) {}

  /** The names of the tests seen, in the order they were first seen. */
  names(): string[] {
    return [...this.tests.keys()];
  }

  /** A test named before it sent anything: known, with no exchange yet. */
  start(name: string): void {
    this.tested(name);
  }

  private tested(name: string): Tested {
    let tested = this.tests.get(name);
    if (!tested) {
      if (this.tests.size >= TESTS_KEPT) this.tests.delete(this.tests.keys().next().value as string);
      tested = { exchanges: 0, judged: 0, rules: new Map() };
      this.tests.set(name, tested);
    }
    return tested;
  }

  /** One exchange of a test, with the must and should findings it was judged to make. */
  record(name: string, judged: boolean, violations: readonly Violation[]): void {
    const tested = this.tested(name);
    tested.exchanges += 1;
    if (judged) tested.judged += 1;
    for (const violation of violations) {
      if (violation.severity === 'observe') continue;
      let failure = tested.rules.get(violation.rule);
      if (!failure) {
        failure = { rule: violation.rule, severity: violation.severity, count: 0, messages: [] };
        tested.rules.set(violation.rule, failure);
      }
      failure.count += 1;
      // Kept for the session: text of its own, not a view of the body a message may quote.
      const message = ownText(`${violation.side}: ${violation.message}`);
      if (failure.messages.length < MESSAGES_KEPT && !failure.messages.includes(message))
        failure.messages.push(message);
    }
  }

  verdict(name: string): TestVerdict | undefined {
    const tested = this.tests.get(name);
    if (!tested) return undefined;
    const all = [...tested.rules.values()];
    const failed = all.filter(
      (failure) => failure.severity === 'must' || (this.strict && failure.severity === 'should'),
    );
    const warnings = all.filter((failure) => !failed.includes(failure));
    return { name, exchanges: tested.exchanges, judged: tested.judged, passed: failed.length === 0, failed, warnings };
  }

  all(): TestVerdict[] {
    return this.names().map((name) => this.verdict(name) as TestVerdict);
  }
}
