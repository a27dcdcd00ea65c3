import { type ExchangeFacts, type ExchangeKind, noFacts } from '../contract/exchange-facts.js';
import { type RuleId, ruleById } from '../contract/rules.js';
import type { Side, Violation } from './exchange.js';

/**
 * What judging one exchange yields: the violations, each with its rule's catalog severity so no
 * check can misstate it, and the facts learnt on the way, from which the catalog tells evidence.
 */
export class Judging {
  readonly items: Violation[] = [];
  readonly facts: ExchangeFacts;

  constructor(kind: ExchangeKind) {
    this.facts = noFacts(kind);
  }

  add(rule: RuleId, side: Side, message: string, path?: string): void {
    const violation: Violation = { rule, severity: ruleById(rule).severity, side, message };
    if (path !== undefined) violation.path = path;
    this.items.push(violation);
  }
}
