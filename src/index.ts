export { RULES, type Rule, ruleById, type Severity, selectRules } from './contract/rules.js';
export type { Exchange, Violation } from './validate/index.js';
export { CheckoutState, validateExchange } from './validate/index.js';
