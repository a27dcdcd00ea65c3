import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/contract/rules.js';
import type { SuiteConfig } from '../../src/probes/index.js';
import { emptyTally } from '../../src/validate/tally.js';
import { runSuites } from '../../suites/index.js';
import { ROOT } from '../helpers/cli.js';

// The suite's own engine: every suite file is loaded, each rule is one test named with its ID in
// its area's block, and a test's verdict, skip and failure come back as the suite files left them.

const config: SuiteConfig & { progress: boolean } = {
  baseUrl: 'http://127.0.0.1:9/v2/',
  checkoutUrl: 'http://127.0.0.1:9/v2/checkout/a',
  uploadUrls: {},
  headers: {},
  credentialHeaders: [],
  secrets: [],
  formats: ['json', 'xml'],
  uploadTypes: ['pdf'],
  selected: RULES.filter((rule) => rule.area === 'checkout').map((rule) => rule.id),
  strict: false,
  readOnly: false,
  timeoutMs: 1000,
  preflight: emptyTally(),
  progress: false,
};

/** A run whose probes are replaced by a tally given here: the engine alone is under test. */
function runWith(results: { error?: string }) {
  return runSuites({
    provided: { printConformanceConfig: config },
    setup: async (setup) => {
      setup.provide('printConformanceResults', { tally: emptyTally(), exchanges: 0, made: [], ...results });
    },
  });
}

describe("the suite's engine", () => {
  it('loads every suite file of suites/', () => {
    const files = readdirSync(join(ROOT, 'suites')).filter((name) => name.endsWith('.suite.ts'));
    const index = readFileSync(join(ROOT, 'suites', 'index.ts'), 'utf8');
    expect(files.length).toBeGreaterThan(0);
    const imported = [...index.matchAll(/^import '\.\/(.+)\.js';$/gm)].map(([, name]) => `${name}.ts`);
    expect(files.filter((name) => !imported.includes(name))).toEqual([]);
  });

  it('runs one test per rule, named with its ID under its area, with its verdict', async () => {
    const outcomes = await runWith({});
    expect(outcomes.map((o) => o.name).sort()).toEqual(RULES.map((rule) => rule.id).sort());
    for (const outcome of outcomes) {
      const rule = RULES.find((r) => r.id === outcome.name);
      expect(outcome.path).toEqual([rule?.area]);
      expect(outcome.meta.verdict?.id).toBe(outcome.name);
    }
    // No exchange: a selected must rule is untested, which fails the run (and its test), with the
    // reason; a rule not selected is skipped.
    const untested = outcomes.find((o) => o.meta.verdict?.status === 'untested');
    expect(untested).toMatchObject({ state: 'failed', message: expect.stringMatching(/^untested: /) });
    const upload = outcomes.find((o) => o.path[0] === 'upload');
    expect(upload).toMatchObject({ state: 'skipped', message: expect.stringContaining('not selected') });
  });

  it('fails every test with the reason when the probes could not run', async () => {
    const outcomes = await runWith({ error: 'connect ECONNREFUSED' });
    expect(outcomes.length).toBe(RULES.length);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ state: 'failed', meta: { probeError: 'connect ECONNREFUSED' } });
      expect(outcome.message).toBe('the probes could not run: connect ECONNREFUSED');
    }
  });

  it('collects each run afresh, so that runs side by side read their own values', async () => {
    const [failing, fine] = await Promise.all([runWith({ error: 'refused' }), runWith({})]);
    expect(failing.every((o) => o.state === 'failed')).toBe(true);
    expect(fine.every((o) => o.meta.verdict && !o.meta.probeError)).toBe(true);
  });
});
