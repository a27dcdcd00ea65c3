import type { RuleId } from '../contract/rules.js';
import type { RunResult } from '../findings/types.js';
import { type ConsoleOptions, consoleSummary } from '../report/console-summary.js';
import { type AnnotationOptions, githubAnnotations } from '../report/github-annotations.js';
import type { SarifOptions } from '../report/sarif-report.js';
import { writeReports } from '../report/write-reports.js';
import { exitCodeOf, type VerdictContext } from '../validate/verdicts.js';
import { writeMarkdownOutputs } from './markdown-outputs.js';

// Where a command that judges recorded traffic or merges results (validate, replay, merge) sends
// its result: every report its report options name, then the console summary, the annotations
// when asked for, and the exit code. Said once, so that every such command tells one story in all.

/** The report options as yargs gives them (withReportOptions). */
export interface ReportArguments {
  'report-dir': string;
  'json-report'?: string;
  junit?: string;
  'allure-dir'?: string;
  sarif?: string;
  'summary-md'?: string;
  reporter: 'console' | 'github';
}

/** The verdicts on traffic that `--format`, `--only` and `--strict` ask for. */
export function trafficVerdictContext(
  argv: { format: string; only?: unknown; strict: boolean },
  selected: Set<RuleId>,
): VerdictContext {
  const auto = argv.format === 'auto' && argv.only === undefined;
  return {
    face: 'traffic',
    selected,
    formats: argv.format === 'json' || argv.format === 'xml' ? [argv.format] : ['json', 'xml'],
    strict: argv.strict,
    ...(auto ? { auto } : {}),
  };
}

/** results.json, junit.xml, Allure, SARIF and the Markdown summary, where the options say. */
export function writeResultReports(result: RunResult, argv: ReportArguments, sarifOptions?: SarifOptions): void {
  writeReports(result, {
    reportDir: argv['report-dir'],
    jsonReport: argv['json-report'],
    junit: argv.junit,
    allureDir: argv['allure-dir'],
    sarif: argv.sarif,
    sarifOptions,
  });
  writeMarkdownOutputs(result, argv['summary-md']);
}

/** The console summary (and annotations) on standard output, and the exit code the verdicts give. */
export function showResult(
  result: RunResult,
  reporter: ReportArguments['reporter'],
  options: ConsoleOptions,
  where: AnnotationOptions = {},
): void {
  process.stdout.write(consoleSummary(result, options));
  if (reporter === 'github') process.stdout.write(githubAnnotations(result, where));
  process.exitCode = exitCodeOf(result.rules);
}
