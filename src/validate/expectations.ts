import { type RuleId, ruleById } from '../contract/rules.js';
import type { Exchange, Violation } from './exchange.js';

// The suite's half of rules that say what a service must accept or refuse (ReturnUrl bounds,
// upload types, raw and multipart uploads): traffic cannot show these, a deliberate probe can.

export type Expected = 'accepted' | 'rejected';

export function expectAnswer(
  exchange: Exchange,
  rule: RuleId,
  expected: Expected,
  what: string,
): Violation | undefined {
  const status = exchange.response?.status;
  const make = (message: string): Violation => ({ rule, severity: ruleById(rule).severity, side: 'response', message });
  if (status === undefined) return make(`${what}: no answer (${exchange.error ?? 'no response'})`);
  if (expected === 'accepted' && (status < 200 || status > 299)) {
    return make(`${what} must be accepted (2xx) but was answered ${status}`);
  }
  if (expected === 'rejected' && (status < 400 || status > 499)) {
    return make(`${what} must be rejected (4xx) but was answered ${status}`);
  }
  return undefined;
}
