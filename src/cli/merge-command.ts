import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { Argv } from 'yargs';
import { TOOL_NAME } from '../contract/package-root.js';
import type { RunResult } from '../findings/types.js';
import { UsageError } from '../findings/usage-error.js';
import { consoleSummary, terminalWidth } from '../report/console-summary.js';
import { githubAnnotations } from '../report/github-annotations.js';
import { runResult } from '../report/run-result.js';
import { writeReports } from '../report/write-reports.js';
import { mergeTallies, tallyOfResult } from '../validate/tally.js';
import { contextFromJson, exitCodeOf, verdictsOf } from '../validate/verdicts.js';
import { writeMarkdownOutputs } from './markdown-outputs.js';
import { withReportOptions } from './report-options.js';
import { withSettings } from './settings.js';
import { checkReportPlaces } from './writable.js';

// Shards of one `validate` (validate --shard K/N on several machines or processes) each write a
// results.json; merge combines them into the report of the whole, with the statuses, counts and
// exit code one run over all the traffic would have given.

function readResults(file: string): RunResult {
  let value: Partial<RunResult>;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (value?.tool !== TOOL_NAME || !Array.isArray(value.rules) || !value.run || !value.answers)
    throw new UsageError(`${file} is not a results.json of ${TOOL_NAME} (run or validate) of this version`);
  return value as RunResult;
}

export function mergeResults(results: readonly RunResult[]): RunResult {
  const [first] = results;
  if (!first) throw new UsageError('merge needs at least one results.json');
  for (const other of results.slice(1)) {
    if (!isDeepStrictEqual(other.run, first.run))
      throw new UsageError(
        'the results were made with different rules, formats or options (--only/--skip, --format, --strict): they are not shards of one run',
      );
  }
  const tally = mergeTallies(results.map(tallyOfResult));
  const context = contextFromJson(first.run);
  const started = Math.min(...results.map((r) => Date.parse(r.startedAt)));
  const ended = Math.max(...results.map((r) => Date.parse(r.startedAt) + r.durationMs));
  const targets = [...new Set(results.map((r) => r.target))].join(', ');
  const merged = runResult({ target: targets, started, context, rules: verdictsOf(tally, context), tally });
  return { ...merged, durationMs: ended - started };
}

export function mergeCommand(yargs: Argv) {
  return yargs.command(
    'merge <files..>',
    'Combine the results.json of shards of one validate run into one report',
    (y) =>
      withSettings(
        withReportOptions(y)
          .positional('files', { type: 'string', array: true, describe: 'results.json files of the shards' })
          .option('quiet', {
            type: 'boolean',
            default: false,
            describe: 'No lines on stderr but problems, only the summary',
          })
          .example('$0 merge shard-*/results.json', 'one report for a validate run split with --shard K/N'),
        'merge',
      ),
    (argv) => {
      checkReportPlaces(argv);
      const result = mergeResults((argv.files ?? []).map((file) => readResults(String(file))));
      writeReports(result, {
        reportDir: argv['report-dir'],
        jsonReport: argv['json-report'],
        junit: argv.junit,
        allureDir: argv['allure-dir'],
        sarif: argv.sarif,
      });
      writeMarkdownOutputs(result, argv['summary-md']);
      process.stdout.write(consoleSummary(result, { width: terminalWidth(process.stdout) }));
      if (argv.reporter === 'github') process.stdout.write(githubAnnotations(result));
      process.exitCode = exitCodeOf(result.rules);
    },
  );
}
