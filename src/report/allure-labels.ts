import type { Rule } from '../contract/rules.js';

// How a rule is labelled in Allure, the same for run and validate: ID, severity, seed section, area.

export const ALLURE_SEVERITY: Record<Rule['severity'], string> = {
  must: 'critical',
  should: 'normal',
  observe: 'trivial',
};

export function allureLabels(rule: Rule): { name: string; value: string }[] {
  return [
    { name: 'rule', value: rule.id },
    { name: 'severity', value: ALLURE_SEVERITY[rule.severity] },
    { name: 'seed', value: rule.seed },
    { name: 'feature', value: rule.area },
  ];
}
