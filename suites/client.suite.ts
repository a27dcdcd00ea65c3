import { describe } from './engine.js';
import { defineRuleTests } from './rule-tests.js';

// What a client sends: judged in traffic (proxy, validate); the suite lists the rules as skipped.
describe('client', () => defineRuleTests('client'));
