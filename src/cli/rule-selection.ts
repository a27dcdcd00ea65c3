import { RULES, type RuleId, selectRules } from '../contract/rules.js';
import { UsageError } from '../findings/usage-error.js';
import { nearestName } from './did-you-mean.js';

/** Option values given repeatedly or comma-separated ("--only a,b --only c"), as one list. */
export function optionList(value: unknown): string[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value])
    .flatMap((item) => String(item).split(','))
    .map((item) => item.trim())
    .filter(Boolean);
}

/** An unknown item with the rule ID or area prefix it was probably meant to be. */
function withSuggestion(item: string): string {
  const known = [...RULES.map((rule) => rule.id), ...new Set(RULES.map((rule) => `${rule.area}.`))];
  const nearest = nearestName(item, known);
  return nearest ? `${item} (did you mean ${nearest}?)` : item;
}

/**
 * The rule IDs --only/--skip select; an item that matches no rule is a usage error. So is an --only
 * that names nothing (`--only ""`, `--only ,`, a bare `--only`, a CI variable that expanded to
 * nothing): taken as no --only at all, it would widen the run to every rule without a word.
 */
export function selectedRules(only: unknown, skip: unknown): Set<RuleId> {
  const onlyItems = optionList(only);
  if (only !== undefined && onlyItems.length === 0)
    throw new UsageError('--only names no rule (it is empty); give rule IDs or prefixes, e.g. --only checkout.');
  const { selected, unknown } = selectRules(onlyItems, optionList(skip));
  if (unknown.length > 0)
    throw new UsageError(`no rule matches ${unknown.map(withSuggestion).join(', ')}; see "print-conformance rules"`);
  return selected;
}
