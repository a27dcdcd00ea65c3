import type { RuleFacts } from './rule-facts.js';
import { CHECKOUT_RULES } from './rules-checkout.js';
import { CLIENT_FORMAT_HTTP_RULES } from './rules-format.js';
import { OBSERVATIONS } from './rules-observe.js';
import { UPLOAD_RULES } from './rules-upload.js';

export type { Evidence, Face, RuleArea, RuleFormats, Severity } from './rule-facts.js';

// The rule catalog, assembled from its parts in the order of RULES.md. IDs are a public interface
// (reports, JUnit names, recordings, --only/--skip): an ID never changes meaning and is never
// reused; a rule can only be added. Everything a face or writer needs to know of a rule (where it
// is judged, in which formats, whether it writes to the service, what counts as evidence) is a
// field in rule-facts.ts, never re-derived from the ID's spelling.

const CATALOG = [...CHECKOUT_RULES, ...UPLOAD_RULES, ...CLIENT_FORMAT_HTTP_RULES, ...OBSERVATIONS] as const;

/** A rule ID of the catalog: a misspelt ID does not compile. */
export type RuleId = (typeof CATALOG)[number]['id'];

export interface Rule extends RuleFacts {
  id: RuleId;
}

export const RULES: readonly Rule[] = CATALOG;

const byId = new Map<string, Rule>(RULES.map((rule) => [rule.id, rule]));

export function ruleById(id: RuleId): Rule {
  const rule = byId.get(id);
  if (!rule) throw new Error(`unknown rule ${id}`);
  return rule;
}

export function isRuleId(id: string): id is RuleId {
  return byId.has(id);
}

/** The formats a rule is judged in, as verdicts list them ('any' for a rule of no format). */
export function formatsOf(rule: Rule): ('json' | 'xml' | 'any')[] {
  if (rule.formats === 'none') return ['any'];
  if (rule.formats === 'both') return ['json', 'xml'];
  return [rule.formats];
}

/**
 * Selects rules by --only / --skip lists whose items are IDs or prefixes ("upload." or "upload").
 * An item that matches no rule is returned in `unknown` so the CLI can refuse it.
 */
export function selectRules(only: readonly string[] = [], skip: readonly string[] = []) {
  const matches = (id: string, item: string) => id === item || id.startsWith(item.endsWith('.') ? item : `${item}.`);
  const unknown = [...only, ...skip].filter((item) => !RULES.some((rule) => matches(rule.id, item)));
  const selected = RULES.filter(
    (rule) =>
      (only.length === 0 || only.some((item) => matches(rule.id, item))) &&
      !skip.some((item) => matches(rule.id, item)),
  );
  return { selected: new Set<RuleId>(selected.map((rule) => rule.id)), unknown };
}
