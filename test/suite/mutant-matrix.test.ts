import { describe, expect, it } from 'vitest';
import { type RuleId, ruleById } from '../../src/contract/rules.js';
import { brokenInTraffic, runSuiteInProcess } from './in-process-run.js';
import { BREAKING, CONFORMANT_DIALECTS, EVIDENCE_STARVED } from './mutants.js';

// The suite against each variant of the reference service, run in this process: a variant that
// breaks a rule fails exactly that rule (and what it implies); a conformant dialect fails nothing.
// The same traffic is then judged as validate judges a recording of it (and the proxy its live
// traffic): the service's faults that traffic can show are found there too, and a conformant
// dialect shows none.

const sorted = (ids: readonly RuleId[]) => [...new Set(ids)].sort();

/** What traffic shows of a variant's faults: its failed rules that are judged in traffic. */
const inTraffic = (fails: readonly RuleId[]) => fails.filter((id) => ruleById(id).faces.includes('traffic'));

describe.concurrent('mutant matrix', () => {
  for (const mutant of BREAKING) {
    it(`catches ${mutant.name}`, async () => {
      const run = await runSuiteInProcess(mutant);
      expect(run.failed, mutant.fails.map(run.detail).join('\n')).toEqual(sorted(mutant.fails));
      const mustBroken = mutant.fails.some((id) => ruleById(id).severity === 'must');
      expect(run.code, run.untestedMust.join(', ')).toBe(mustBroken || run.untestedMust.length > 0 ? 1 : 0);
      const traffic = brokenInTraffic(run.exchanges);
      expect(traffic.rules, traffic.messages.join('\n')).toEqual(sorted(mutant.traffic ?? inTraffic(mutant.fails)));
    });
  }

  for (const dialect of CONFORMANT_DIALECTS) {
    it(`passes ${dialect.name}`, async () => {
      const run = await runSuiteInProcess(dialect);
      const failures = run.rules.flatMap((rule) => rule.failures.map((f) => `${rule.id}: ${f.message}`));
      expect(run.failed, failures.join('\n')).toEqual([]);
      expect(run.untestedMust).toEqual([]);
      expect(run.code).toBe(0);
      const traffic = brokenInTraffic(run.exchanges);
      expect(traffic.rules, traffic.messages.join('\n')).toEqual([]);
    });
  }

  // A variant that never lets a rule be tested gets `untested` for it (or `failed`), never `passed`.
  for (const variant of EVIDENCE_STARVED) {
    it(`never passes the ${variant.notPassed.length} rules it gives no evidence for: ${variant.name}`, async () => {
      const run = await runSuiteInProcess(variant);
      for (const id of variant.notPassed) expect(['untested', 'failed'], id).toContain(run.statuses.get(id));
      expect(variant.notPassed.filter((id) => run.statuses.get(id) === 'untested').length).toBeGreaterThan(0);
      expect(run.code).toBe(1);
    });
  }
});
