import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import type { Argv } from 'yargs';
import { UsageError } from '../findings/usage-error.js';
import { mostJobs } from '../recording/judge-jobs.js';
import { expandRecordingFolders } from '../recording/recording-files.js';
import { clientsByName, clientVerdicts } from '../validate/client-tally.js';
import type { TallyData } from '../validate/tally.js';
import { CLIENTS_BY_OPTION, parseClientsBy } from './clients-by.js';
import { stopOnInterrupt } from './interrupt.js';
import { withReportOptions } from './report-options.js';
import { selectedRules } from './rule-selection.js';
import { withSettings } from './settings.js';
import { checkReportPlaces, clearPreviousReports } from './writable.js';

/**
 * The recordings a shard judged, as merge compares them: by name and size. Standard input has its
 * size once read: shards of two different inputs are then told apart, as files are.
 */
async function recordingsNamed(
  files: readonly string[],
  bytesRead: readonly number[],
): Promise<{ name: string; bytes: number | null }[]> {
  const { recordingSize } = await import('../recording/read-exchanges.js');
  return files.map((file, index) => ({ name: basename(file), bytes: recordingSize(file) ?? bytesRead[index] ?? null }));
}

/** --shard K/N as numbers, 1 ≤ K ≤ N. */
function shardOf(value: string | undefined): { index: number; count: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index < 1 || count < 1 || index > count)
    throw new UsageError(`--shard ${value} is not K/N with 1 ≤ K ≤ N, e.g. --shard 2/4`);
  return { index, count };
}

/** --base-url as the base the judges compare URLs with: an absolute http(s) URL. */
function serviceBaseOf(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `--base-url ${value} is not an absolute URL; give the service's base, e.g. https://test.example.com/v2/`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--base-url ${value} is not an http(s) URL`);
  return url.href;
}

/** Why traffic without an exchange of the interface cannot be judged, and what it held instead. */
function noInterfaceMessage(what: string, tally: TallyData, base: string | undefined): string {
  const outside = Object.entries(tally.traffic.notInterface).sort((a, b) => b[1] - a[1]);
  const held = outside.length === 0 ? 'no exchange at all' : outside.map(([reason, n]) => `${n}× ${reason}`).join(', ');
  const hint =
    outside.length === 0
      ? ''
      : base
        ? `; is ${base} (--base-url) the service's base?`
        : tally.traffic.orders > 0
          ? ''
          : '; give --base-url if the service lives elsewhere than the traffic suggests';
  return `no exchange of the interface in ${what} (it holds ${held}${tally.traffic.orders > 0 ? `, ${tally.traffic.orders} order answers` : ''})${hint}`;
}

/** The code that turns a tally into verdicts and reports, loaded once the judging is under way. */
function loadReportingCode() {
  return Promise.all([
    import('../report/colour.js'),
    import('../report/console-summary.js'),
    import('../report/run-result.js'),
    import('../report/terminal-text.js'),
    import('../validate/verdicts.js'),
    import('./result-outputs.js'),
  ]);
}
type ReportingCode = Awaited<ReturnType<typeof loadReportingCode>>;

/** Lines skipped beyond this many are counted, not listed. */
const SHOWN_WARNINGS = 20;

export function validateCommand(yargs: Argv) {
  return yargs.command(
    'validate <files..>',
    'Validate recorded traffic offline: NDJSON recordings of the proxy and HAR 1.2 files',
    (y) =>
      withSettings(
        withReportOptions(y)
          .positional('files', {
            // Required: an empty default would only contradict that in --help.
            default: undefined,
            type: 'string',
            array: true,
            describe:
              'Recordings (.ndjson, gzip-compressed .ndjson.gz) or HAR files, or folders of them (read in name order); - reads one from standard input',
          })
          .option('only', { type: 'string', array: true, describe: 'Judge only these rule IDs or prefixes' })
          .option('skip', { type: 'string', array: true, describe: 'Skip these rule IDs or prefixes' })
          .option('strict', { type: 'boolean', default: false, describe: 'Fail on should rules too' })
          .option('quiet', {
            type: 'boolean',
            default: false,
            describe: 'No progress lines and no table: warnings, the failures and the summary line',
          })
          .option('format', {
            choices: ['auto', 'json', 'xml', 'both'] as const,
            default: 'auto' as const,
            describe:
              'Formats to judge: auto judges the formats and operations the traffic used and skips the rest; json, xml or both make every selected rule required',
          })
          .option('base-url', {
            type: 'string',
            describe:
              "The service's base URL (where orders, checkout/… and files/… live) when the recording holds other hosts or paths; without it, the base is learnt from the traffic's API calls",
          })
          .option('jobs', {
            type: 'number',
            requiresArg: true,
            describe:
              'Threads that judge, the main one included, at most 4 a core (default, or 0: one for standard input and recordings under 16 MiB, 128 MiB on two cores, else one per core up to 4)',
          })
          .option('clients-by', CLIENTS_BY_OPTION)
          .option('shard', {
            type: 'string',
            describe:
              'K/N: judge only the checkouts that fall in shard K of N (1-based); merge the shards\' results.json with "print-conformance merge"',
          })
          .example('$0 validate traffic.ndjson', 'judge a proxy recording')
          .example(
            '$0 validate session.har --base-url https://api.example.com/v2/',
            'judge the interface calls of a browser HAR',
          )
          .example('$0 validate session.har --only checkout.', 'judge the checkout exchanges of a browser HAR')
          .example(
            '$0 validate traffic.ndjson --clients-by oauth',
            'a verdict per client team, from the client the proxy (--clients-by) named on each line',
          ),
        'validate',
      ),
    async (argv) => {
      const started = Date.now();
      const startedMonotonic = performance.now();
      const selected = selectedRules(argv.only, argv.skip);
      const files = expandRecordingFolders((argv.files ?? []).map(String));
      checkReportPlaces(argv);
      const jobs = argv.jobs;
      if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 0))
        throw new UsageError(`--jobs must be a whole number of threads${Number.isNaN(jobs) ? '' : `, not ${jobs}`}`);
      if (jobs !== undefined && jobs > mostJobs())
        throw new UsageError(
          `--jobs ${jobs} is more threads than ${availableParallelism()} cores can use; give at most ${mostJobs()}`,
        );
      // A long recording shows it is moving; scripts reading stderr get no progress lines.
      const progress =
        process.stderr.isTTY && !argv.quiet
          ? (lines: number) => process.stderr.write(`${lines} lines read…\n`)
          : undefined;
      const shard = shardOf(argv.shard);
      const clientsBy = parseClientsBy(argv['clients-by']);
      clearPreviousReports(argv);
      const interrupt = stopOnInterrupt('validate', argv['report-dir']);
      const base = argv['base-url'] === undefined ? undefined : serviceBaseOf(argv['base-url']);
      // The reports' code loads while this thread waits for the worker threads (or once the
      // judging is done), not while the workers wait for their first lines. Neither it nor the
      // judging code is loaded before this command runs: the others start without them.
      let reporting: Promise<ReportingCode> | undefined;
      const reportingCode = () => {
        reporting ??= loadReportingCode();
        return reporting;
      };
      const { judgeRecordings } = await import('../recording/judge-recordings.js');
      const judged = await judgeRecordings(files, {
        jobs,
        progress,
        ...(shard ? { shard } : {}),
        ...(base ? { base } : {}),
        // Judging may still fail: the reports' code is then not waited for, nor its failure left unhandled.
        whileWaiting: () => void reportingCode().catch(() => {}),
      }).finally(() => interrupt.release());
      const [{ colourWanted }, { terminalWidth }, { runResult }, { terminalText }, verdicts, outputs] =
        await reportingCode();
      const { shardVerdicts, verdictsOf } = verdicts;
      const { showResult, trafficVerdictContext, writeResultReports } = outputs;
      const { tally } = judged;
      for (const warning of judged.warnings.slice(0, SHOWN_WARNINGS))
        process.stderr.write(terminalText(`warning: ${files[warning.at.file]}: ${warning.message}\n`));
      if (judged.warnings.length > SHOWN_WARNINGS)
        process.stderr.write(`warning: … and ${judged.warnings.length - SHOWN_WARNINGS} more lines skipped\n`);
      // A shard may fall on no checkout of a small recording; only a whole run with nothing is an error.
      if (tally.exchanges === 0 && !shard) throw new UsageError(noInterfaceMessage(files.join(', '), tally, base));

      const context = trafficVerdictContext(argv, selected);
      const result = runResult({
        target: files.join(', '),
        started,
        startedMonotonic,
        context,
        rules: shard ? shardVerdicts(verdictsOf(tally, context)) : verdictsOf(tally, context),
        tally,
        ...(shard
          ? { shard: { k: shard.index, n: shard.count, recordings: await recordingsNamed(files, judged.bytesRead) } }
          : {}),
        // The split is the one the proxy made: each line names its client (tokens are redacted in recordings).
        ...(clientsBy.kind !== 'none'
          ? {
              clients: {
                by: clientsByName(clientsBy),
                clients: clientVerdicts(judged.clients, argv.strict, selected),
              },
            }
          : {}),
      });
      // A warning, kept under --quiet: without it no client would read as clients that broke nothing.
      if (clientsBy.kind !== 'none' && judged.clients.size === 0)
        process.stderr.write(
          'warning: no exchange of these recordings names its client; record them with proxy --clients-by\n',
        );
      writeResultReports(result, argv, { recordings: files });
      const skipped = judged.warnings.length;
      // Every exchange read, judged or counted apart (order answers, what is not the interface).
      const read =
        tally.exchanges + tally.traffic.orders + Object.values(tally.traffic.notInterface).reduce((a, n) => a + n, 0);
      // A shard reads every line but judges only its checkouts: it says what it judged.
      const counted = shard
        ? `${read} exchanges judged in shard ${shard.index}/${shard.count}`
        : `${read} exchanges read`;
      if (!argv.quiet) process.stderr.write(`${counted}${skipped ? `, ${skipped} lines skipped` : ''}\n`);
      showResult(
        result,
        argv.reporter,
        { colour: colourWanted(process.stdout), width: terminalWidth(process.stdout), brief: argv.quiet },
        { recordings: files },
      );
    },
  );
}
