import { probeService, runSuites, type TestOutcome } from '../../suites/index.js';
import { RULES } from '../contract/rules.js';
import type { GeneratedSummary, RuleResult } from '../findings/types.js';
import { UsageError } from '../findings/usage-error.js';
import type { SuiteConfig } from '../probes/index.js';
import { terminalText } from '../report/terminal-text.js';
import type { Exchange } from '../validate/exchange.js';
import type { TallyData } from '../validate/tally.js';

// Runs the conformance suite (suites/*.suite.ts) in this process with the suite's own engine, and
// reads each rule's verdict back from the tests' meta. The reports are written from those verdicts
// by the tool's own writers, so that every report and the exit code tell one story.

export interface SuiteRunOptions {
  config: SuiteConfig;
  progress: boolean;
  /** Every request and every rule's verdict as it comes, besides each phase's line. */
  verbose?: boolean;
}

const MARK: Record<RuleResult['status'], string> = {
  passed: '✓',
  failed: '✗',
  untested: '?',
  skipped: '-',
  observed: '·',
};

/** Rules left out by --only/--skip are not news; every other rule not judged says why. */
const NOT_SELECTED = 'not selected (--only/--skip)';

function progressLine(outcome: TestOutcome): string | undefined {
  const verdict = outcome.meta.verdict;
  if (!verdict || verdict.reason === NOT_SELECTED) return undefined;
  const warning = verdict.status === 'failed' && !verdict.failsRun;
  const why =
    verdict.status === 'skipped' || verdict.status === 'untested' ? `: ${verdict.reason || 'no reason given'}` : '';
  return `${warning ? '!' : MARK[verdict.status]} ${outcome.name}${why}`;
}

export interface SuiteOutcome {
  rules: RuleResult[];
  answers: TallyData['answers'];
  exchanges: number;
  coverage: TallyData['coverage'];
  generated?: GeneratedSummary;
  /** The probes' exchanges as made, unredacted: a recording redacts them on its way to disk. */
  made: Exchange[];
}

export async function runSuite(options: SuiteRunOptions): Promise<SuiteOutcome> {
  const write = (line: string) => process.stderr.write(`${terminalText(line)}\n`);
  let made: Exchange[] = [];
  const outcomes = await runSuites({
    provided: {
      printConformanceConfig: { ...options.config, progress: options.progress, verbose: options.verbose === true },
    },
    setup: async (setup) => {
      await probeService(setup);
      made = setup.provided.printConformanceResults?.made ?? [];
    },
    // The verdicts are the summary table's at the end: told as they come only when asked for.
    ...(options.progress && options.verbose
      ? {
          onTestResult: (outcome: TestOutcome) => {
            const line = progressLine(outcome);
            if (line) write(line);
          },
        }
      : {}),
  });
  const byId = new Map<string, RuleResult>();
  let probeError: string | undefined;
  let answers: TallyData['answers'] = {};
  let exchanges = 0;
  let coverage: TallyData['coverage'] = {};
  let generated: GeneratedSummary | undefined;
  for (const { meta, state, message, name } of outcomes) {
    if (meta.verdict) byId.set(meta.verdict.id, meta.verdict);
    // A test that failed without a verdict broke in the suite's own code, not in the service.
    else if (state === 'failed' && !meta.probeError) throw new Error(`the suite's test ${name} broke: ${message}`);
    probeError ??= meta.probeError;
    if (meta.answers) answers = meta.answers;
    if (meta.exchanges !== undefined) exchanges = meta.exchanges;
    if (meta.coverage) coverage = meta.coverage;
    if (meta.generated) generated = meta.generated;
  }
  if (probeError) throw new UsageError(`the probes could not run: ${probeError}`);
  const missing = RULES.filter((rule) => !byId.has(rule.id)).map((rule) => rule.id);
  if (missing.length > 0) throw new Error(`the suite gave no verdict for ${missing.join(', ')}`);
  const rules = RULES.map((rule) => byId.get(rule.id) as RuleResult);
  return { rules, answers, exchanges, coverage, made, ...(generated ? { generated } : {}) };
}
