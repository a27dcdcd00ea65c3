import { describe } from 'vitest';
import { defineRuleTests } from './rule-tests.js';

describe('upload', () => defineRuleTests('upload'));
