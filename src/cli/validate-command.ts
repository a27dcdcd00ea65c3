import { join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { TOOL_NAME, TOOL_VERSION } from '../contract/package-root.js';
import { RULES } from '../contract/rules.js';
import type { Finding } from '../probes/index.js';
import { judgeRecordings } from '../recording/judge-recordings.js';
import { writeAllureResults } from '../report/allure-report.js';
import { clearAllureResults } from '../report/clear-allure-results.js';
import { consoleSummary } from '../report/console-summary.js';
import { githubAnnotations } from '../report/github-annotations.js';
import { writeJsonReport } from '../report/json-report.js';
import { writeJunitReport } from '../report/junit-report.js';
import { exitCodeOf, type FormatVerdict, foldVerdicts, type RunResult } from '../report/run-result.js';
import { selectedRules } from './rule-selection.js';
import { withSettings } from './settings.js';
import { UsageError } from './usage-error.js';
import { checkReportPlaces } from './writable.js';

/** Lines skipped beyond this many are counted, not listed. */
const SHOWN_WARNINGS = 20;

export function validateCommand(yargs: Argv) {
  return yargs.command(
    'validate <files..>',
    'Validate recorded traffic offline: NDJSON recordings of the proxy and HAR 1.2 files',
    (y) =>
      withSettings(
        y
          .positional('files', { type: 'string', array: true, describe: 'Recordings (.ndjson) or HAR files' })
          .option('only', { type: 'string', array: true, describe: 'Judge only these rule IDs or prefixes' })
          .option('skip', { type: 'string', array: true, describe: 'Skip these rule IDs or prefixes' })
          .option('strict', { type: 'boolean', default: false, describe: 'Fail on should rules too' })
          .option('report-dir', {
            type: 'string',
            default: 'reports',
            describe: 'Folder for results.json and junit.xml',
          })
          .option('json-report', { type: 'string', describe: 'Path of the JSON report' })
          .option('junit', { type: 'string', describe: 'Path of the JUnit report' })
          .option('jobs', {
            type: 'number',
            describe:
              'Worker threads that judge (default: 1 for small recordings, one per core up to 4 for large ones)',
          })
          .option('reporter', {
            choices: ['console', 'github'] as const,
            default: 'console' as const,
            describe: 'github: also print GitHub Actions annotations for failed rules',
          })
          .option('allure-dir', {
            type: 'string',
            describe: 'Folder of Allure results (default <report-dir>/allure-results)',
          })
          .example('$0 validate traffic.ndjson', 'judge a proxy recording')
          .example('$0 validate session.har --only checkout.', 'judge the checkout exchanges of a browser HAR'),
        'validate',
      ),
    async (argv) => {
      const started = Date.now();
      const selected = selectedRules(argv.only, argv.skip);
      const files = (argv.files ?? []).map(String);
      checkReportPlaces(argv);
      const jobs = argv.jobs;
      if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 0))
        throw new UsageError(
          `--jobs must be a whole number of worker threads${Number.isNaN(jobs) ? '' : `, not ${jobs}`}`,
        );
      // A long recording shows it is moving; scripts reading stderr get no progress lines.
      const progress = process.stderr.isTTY
        ? (lines: number) => process.stderr.write(`${lines} lines read…\n`)
        : undefined;
      const judged = await judgeRecordings(files, { selected, jobs, progress });
      const { seen, counts } = judged;
      for (const warning of judged.warnings.slice(0, SHOWN_WARNINGS))
        process.stderr.write(`warning: ${files[warning.at.file]}: ${warning.message}\n`);
      if (judged.warnings.length > SHOWN_WARNINGS)
        process.stderr.write(`warning: … and ${judged.warnings.length - SHOWN_WARNINGS} more lines skipped\n`);
      const warnings = judged.warnings.length;
      const findings: Finding[] = judged.kept.map(({ rule, format, message, exchange }) => ({
        rule,
        format,
        message,
        exchange,
      }));
      if (seen.any === 0) throw new UsageError(`no exchange found in ${files.join(', ')}`);

      const verdicts = new Map<string, FormatVerdict[]>();
      for (const rule of RULES) {
        const mine = findings.filter((f) => f.rule === rule.id);
        const more = (counts[rule.id] ?? 0) - mine.length;
        const last = mine.at(-1);
        if (more > 0 && last) mine.push({ ...last, message: `… and ${more} more exchanges like these` });
        const area = rule.id.startsWith('checkout.') ? 'checkout' : rule.id.startsWith('upload.') ? 'upload' : 'any';
        let skipReason: string | undefined;
        if (!selected.has(rule.id)) skipReason = 'not selected (--only/--skip)';
        else if (!rule.scope.includes('traffic')) skipReason = 'judged by the suite only';
        else if (seen[area] === 0) skipReason = `no ${area} exchange in the recording`;
        const failing = mine.length > 0 && (rule.severity === 'must' || (rule.severity === 'should' && argv.strict));
        const verdict: FormatVerdict = skipReason
          ? { format: 'any', state: 'skipped', failures: [], skipReason }
          : { format: 'any', state: failing ? 'failed' : 'passed', failures: mine };
        verdicts.set(rule.id, [verdict]);
      }
      const folded = foldVerdicts(verdicts, argv.strict);
      const result: RunResult = {
        tool: TOOL_NAME,
        version: TOOL_VERSION,
        target: files.join(', '),
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        ...folded,
      };
      const reportDir = resolve(argv['report-dir']);
      writeJsonReport(result, resolve(argv['json-report'] ?? join(reportDir, 'results.json')));
      writeJunitReport(result, resolve(argv.junit ?? join(reportDir, 'junit.xml')));
      const allureDir = resolve(argv['allure-dir'] ?? join(reportDir, 'allure-results'));
      clearAllureResults(allureDir);
      writeAllureResults(result, allureDir);
      process.stderr.write(`${seen.any} exchanges read${warnings ? `, ${warnings} lines skipped` : ''}\n`);
      process.stdout.write(consoleSummary(result));
      if (argv.reporter === 'github') process.stdout.write(githubAnnotations(result));
      process.exitCode = exitCodeOf(result, argv.strict);
    },
  );
}
