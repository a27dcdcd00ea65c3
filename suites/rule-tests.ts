import { RULES, type RuleArea } from '../src/contract/rules.js';
import type { RuleResult } from '../src/findings/types.js';
import { suiteContext } from '../src/probes/index.js';
import { mergeTallies } from '../src/validate/tally-merge.js';
import { verdictOf } from '../src/validate/verdicts.js';
import { inject, test } from './engine.js';
import './provided.js';

// One test per rule, named with the rule ID, whose verdict comes from the one status model that
// every report uses: the test fails exactly when the rule fails the run, and is skipped (with the
// reason) when the rule is untested or not selected.

function describeFailures(verdict: RuleResult): string {
  if (verdict.status === 'untested') return `untested: ${verdict.reason ?? 'no evidence'}`;
  const shown = verdict.failures.slice(0, 5).map((f) => {
    const where = `${f.exchange.method} ${f.exchange.url} → ${f.exchange.status ?? f.exchange.error ?? 'no answer'}`;
    return `${f.format === 'any' ? '' : `[${f.format}] `}${f.message}\n    ${where}`;
  });
  const more = verdict.failures.length - shown.length + verdict.moreFailures;
  return `${shown.join('\n')}${more > 0 ? `\n(and ${more} more)` : ''}`;
}

export function defineRuleTests(area: RuleArea): void {
  const config = inject('printConformanceConfig');
  const results = inject('printConformanceResults');
  const tally = mergeTallies([config.preflight, results.tally]);
  const context = suiteContext(config);
  for (const rule of RULES.filter((r) => r.area === area)) {
    test(rule.id, (testContext) => {
      if (results.error) {
        testContext.meta.probeError = results.error;
        throw new Error(`the probes could not run: ${results.error}`);
      }
      const verdict = verdictOf(rule, tally, context);
      testContext.meta.verdict = verdict;
      testContext.meta.answers = tally.answers;
      testContext.meta.exchanges = results.exchanges;
      testContext.meta.coverage = tally.coverage;
      if (results.generated) testContext.meta.generated = results.generated;
      if (verdict.failsRun) throw new Error(describeFailures(verdict));
      if (verdict.status === 'skipped' || verdict.status === 'untested')
        testContext.skip(`${verdict.status}: ${verdict.reason ?? ''}`);
    });
  }
}
