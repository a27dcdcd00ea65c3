import { describe } from './engine.js';
import { defineRuleTests } from './rule-tests.js';

describe('observe', () => defineRuleTests('observe'));
