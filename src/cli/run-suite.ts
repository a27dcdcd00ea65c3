import { join } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import { startVitest } from 'vitest/node';
import { PACKAGE_ROOT } from '../contract/package-root.js';
import { RULES } from '../contract/rules.js';
import type { GeneratedSummary, RuleResult } from '../findings/types.js';
import { UsageError } from '../findings/usage-error.js';
import type { SuiteConfig } from '../probes/index.js';
import { terminalText } from '../report/terminal-text.js';
import type { TallyData } from '../validate/tally.js';

// Runs the conformance suite (suites/*.suite.ts, compiled to dist/suites) through vitest's Node
// API, and reads each rule's verdict back from the tests' meta. The reports are written from those
// verdicts by the tool's own writers, not by vitest's reporters, so that every report and the exit
// code tell one story.

export interface SuiteRunOptions {
  config: SuiteConfig;
  progress: boolean;
  /** Every request and every rule's verdict as it comes, besides each phase's line. */
  verbose?: boolean;
  /** Where the probes write their exchanges (redacted) for a recording of the run. */
  exchangesFile?: string;
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

function progressReporter(write: (line: string) => void): Reporter {
  return {
    onTestCaseResult(testCase: TestCase) {
      const verdict = testCase.meta().verdict;
      if (!verdict || verdict.reason === NOT_SELECTED) return;
      const warning = verdict.status === 'failed' && !verdict.failsRun;
      const why =
        verdict.status === 'skipped' || verdict.status === 'untested' ? `: ${verdict.reason || 'no reason given'}` : '';
      write(`${warning ? '!' : MARK[verdict.status]} ${testCase.name}${why}`);
    },
  };
}

export interface SuiteOutcome {
  rules: RuleResult[];
  answers: TallyData['answers'];
  exchanges: number;
  coverage: TallyData['coverage'];
  generated?: GeneratedSummary;
}

export async function runSuite(options: SuiteRunOptions): Promise<SuiteOutcome> {
  const write = (line: string) => process.stderr.write(`${terminalText(line)}\n`);
  const compiledSuites = join(PACKAGE_ROOT, 'dist', 'suites');
  const vitest = await startVitest(
    'test',
    [],
    {
      root: PACKAGE_ROOT,
      dir: compiledSuites,
      config: false,
      watch: false,
      include: ['**/*.suite.js'],
      exclude: [],
      globalSetup: [join(compiledSuites, 'probe.global.js')],
      provide: {
        printConformanceConfig: {
          ...options.config,
          progress: options.progress,
          verbose: options.verbose === true,
          ...(options.exchangesFile ? { exchangesFile: options.exchangesFile } : {}),
        },
      },
      // The verdicts are the summary table's at the end: told as they come only when asked for.
      reporters: [options.progress && options.verbose ? progressReporter(write) : {}],
      // The verdict tests only read the tally; one worker keeps the run light on a 2-core machine.
      pool: 'threads',
      maxWorkers: 1,
      fileParallelism: false,
      testTimeout: 0,
      hookTimeout: 0,
      passWithNoTests: false,
    },
    { logLevel: 'silent', cacheDir: join(PACKAGE_ROOT, 'node_modules', '.vite-print-conformance') },
  );
  const byId = new Map<string, RuleResult>();
  let probeError: string | undefined;
  let answers: TallyData['answers'] = {};
  let exchanges = 0;
  let coverage: TallyData['coverage'] = {};
  let generated: GeneratedSummary | undefined;
  const modules: readonly TestModule[] = vitest.state.getTestModules();
  for (const module of modules) {
    for (const testCase of module.children.allTests()) {
      const meta = testCase.meta();
      if (meta.verdict) byId.set(meta.verdict.id, meta.verdict);
      probeError ??= meta.probeError;
      if (meta.answers) answers = meta.answers;
      if (meta.exchanges !== undefined) exchanges = meta.exchanges;
      if (meta.coverage) coverage = meta.coverage;
      if (meta.generated) generated = meta.generated;
    }
  }
  await vitest.close();
  if (probeError) throw new UsageError(`the probes could not run: ${probeError}`);
  const missing = RULES.filter((rule) => !byId.has(rule.id)).map((rule) => rule.id);
  if (missing.length > 0) throw new Error(`the suite gave no verdict for ${missing.join(', ')}`);
  const rules = RULES.map((rule) => byId.get(rule.id) as RuleResult);
  return { rules, answers, exchanges, coverage, ...(generated ? { generated } : {}) };
}
