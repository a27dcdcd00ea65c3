import { describe } from 'vitest';
import { defineRuleTests } from './rule-tests.js';

describe('http', () => defineRuleTests('http'));
