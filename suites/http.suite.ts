import { describe } from './engine.js';
import { defineRuleTests } from './rule-tests.js';

describe('http', () => defineRuleTests('http'));
