import { join } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import { startVitest } from 'vitest/node';
import { PACKAGE_ROOT } from '../contract/package-root.js';
import type { SuiteConfig } from '../probes/index.js';
import type { FormatVerdict } from '../report/run-result.js';

// Runs the conformance suite (suites/*.suite.ts, compiled to dist/suites) through vitest's Node
// API, and reads each rule's verdict back from the tests' meta.

export interface SuiteRunOptions {
  config: SuiteConfig;
  progress: boolean;
  junitFile?: string;
  allureDir?: string;
}

function progressReporter(write: (line: string) => void): Reporter {
  const mark = { passed: '✓', failed: '✗', skipped: '-', pending: '…' } as const;
  return {
    onTestCaseResult(testCase: TestCase) {
      const state = testCase.result().state;
      const warning = testCase.annotations().some((a) => a.type === 'warning');
      write(`${warning && state === 'passed' ? '!' : mark[state]} ${testCase.name}`);
    },
  };
}

export async function runSuite(options: SuiteRunOptions): Promise<Map<string, FormatVerdict[]>> {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  const reporters: (Reporter | [string, Record<string, unknown>])[] = [];
  if (options.progress) reporters.push(progressReporter(write));
  else reporters.push({});
  if (options.junitFile) reporters.push(['junit', { outputFile: options.junitFile, suiteName: 'print-conformance' }]);
  if (options.allureDir) reporters.push(['allure-vitest/reporter', { resultsDir: options.allureDir }]);

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
      setupFiles: options.allureDir ? ['allure-vitest/setup'] : [],
      provide: { printConformanceConfig: { ...options.config, progress: options.progress } },
      reporters: reporters as never,
      // The verdict tests only read findings; one worker keeps the run light on a 2-core machine.
      pool: 'threads',
      maxWorkers: 1,
      fileParallelism: false,
      testTimeout: 0,
      hookTimeout: 0,
      passWithNoTests: false,
    },
    { logLevel: 'silent', cacheDir: join(PACKAGE_ROOT, 'node_modules', '.vite-print-conformance') },
  );
  const verdicts = new Map<string, FormatVerdict[]>();
  const modules: readonly TestModule[] = vitest.state.getTestModules();
  for (const module of modules) {
    for (const testCase of module.children.allTests()) {
      const meta = testCase.meta().verdict;
      const result = testCase.result();
      const [id, bracketed] = testCase.name.split(' ');
      const format = bracketed ? bracketed.slice(1, -1) : 'any';
      const state = result.state === 'failed' ? 'failed' : result.state === 'skipped' ? 'skipped' : 'passed';
      const verdict: FormatVerdict = { format, state, failures: meta?.failures ?? [] };
      if (state === 'skipped' && result.state === 'skipped' && result.note) verdict.skipReason = result.note;
      if (meta?.observation !== undefined) verdict.observation = meta.observation;
      if (state === 'failed' && verdict.failures.length === 0) {
        const errors = result.state === 'failed' ? result.errors : [];
        verdict.failures = [
          {
            rule: id ?? '',
            format: format as never,
            message: errors.map((e) => e.message).join('; ') || 'failed',
            exchange: { method: '', url: '', requestHeaders: {} },
          },
        ];
      }
      const list = verdicts.get(id ?? '') ?? [];
      list.push(verdict);
      verdicts.set(id ?? '', list);
    }
  }
  await vitest.close();
  return verdicts;
}
