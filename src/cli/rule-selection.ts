import { type RuleId, selectRules } from '../contract/rules.js';
import { UsageError } from '../findings/usage-error.js';

/** Option values given repeatedly or comma-separated ("--only a,b --only c"), as one list. */
export function optionList(value: unknown): string[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value])
    .flatMap((item) => String(item).split(','))
    .map((item) => item.trim())
    .filter(Boolean);
}

/** The rule IDs --only/--skip select; an item that matches no rule is a usage error. */
export function selectedRules(only: unknown, skip: unknown): Set<RuleId> {
  const { selected, unknown } = selectRules(optionList(only), optionList(skip));
  if (unknown.length > 0) throw new UsageError(`no rule matches ${unknown.join(', ')}; see "print-conformance rules"`);
  return selected;
}
