import { describe } from 'vitest';
import { defineRuleTests } from './rule-tests.js';

describe('checkout', () => defineRuleTests('checkout'));
