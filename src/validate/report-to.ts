import { ruleById } from '../contract/rules.js';
import type { Side, Violation } from './exchange.js';

/** Collects violations with each rule's catalog severity, so no check can misstate it. */
export class ViolationList {
  readonly items: Violation[] = [];

  add(rule: string, side: Side, message: string, path?: string): void {
    const violation: Violation = { rule, severity: ruleById(rule).severity, side, message };
    if (path !== undefined) violation.path = path;
    this.items.push(violation);
  }
}
