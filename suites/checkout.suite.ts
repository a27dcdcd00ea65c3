import { describe } from './engine.js';
import { defineRuleTests } from './rule-tests.js';

describe('checkout', () => defineRuleTests('checkout'));
