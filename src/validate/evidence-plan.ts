import { type Rule, type RuleId, ruleById } from '../contract/rules.js';
import type { FormatKey } from '../findings/types.js';
import type { Tested } from './index.js';

// What a judged exchange is evidence for, worked out once per list of tested rules and kept: the
// rules it tested and the verdict formats it counts in. Apart from tally.ts, which counts exchanges
// under these plans and adds a plan's rules to its tables only when read.

/** The format a rule's verdict is given in, for something found on one side of an exchange. */
export function verdictFormat(rule: Rule, onSide: FormatKey, fallback: FormatKey = 'any'): FormatKey {
  if (rule.formats === 'none') return 'any';
  if (rule.formats !== 'both') return rule.formats;
  return onSide === 'any' ? fallback : onSide;
}

/**
 * What a list of tested rules is evidence for: each rule once (for its time) and each rule once per
 * verdict format, whichever sides could have broken it. Lists of tested rules are shared by
 * exchanges alike in their facts (testedBy), so the plan is made once for each.
 */
export interface EvidencePlan {
  rules: RuleId[];
  verdicts: [RuleId, FormatKey][];
}

const plans = new WeakMap<readonly Tested[], Map<FormatKey | undefined, EvidencePlan>>();

export function evidencePlan(tested: readonly Tested[], fallback: FormatKey | undefined): EvidencePlan {
  let byFallback = plans.get(tested);
  if (!byFallback) {
    byFallback = new Map();
    plans.set(tested, byFallback);
  }
  let plan = byFallback.get(fallback);
  if (!plan) {
    const rules = new Set<RuleId>();
    const verdicts = new Map<string, [RuleId, FormatKey]>();
    for (const { rule, format } of tested) {
      rules.add(rule);
      const verdictIn = verdictFormat(ruleById(rule), format, fallback);
      verdicts.set(`${rule} ${verdictIn}`, [rule, verdictIn]);
    }
    plan = { rules: [...rules], verdicts: [...verdicts.values()] };
    byFallback.set(fallback, plan);
  }
  return plan;
}
