import type { Argv } from 'yargs';
import { UsageError } from '../findings/usage-error.js';
import { isPipe, isStdin } from '../recording/read-exchanges.js';
import { expandRecordingFolders } from '../recording/recording-files.js';
import {
  credentialValues,
  givenSecrets,
  noteGivenSecrets,
  redactText,
  withoutGivenSecrets,
} from '../redaction/index.js';
import { colourWanted } from '../report/colour.js';
import { terminalText } from '../report/terminal-text.js';
import { stopOnInterrupt } from './interrupt.js';
import { numberOption } from './number-option.js';
import { replayCredentials } from './replay-credentials.js';
import { withReportOptions } from './report-options.js';
import { selectedRules } from './rule-selection.js';
import { absoluteUrl } from './service-url.js';
import { withSettings } from './settings.js';
import { checkReportPlaces, clearPreviousReports } from './writable.js';

// `print-conformance replay`: a recorded client session sent again to a service (a new build,
// another environment), its new answers judged as `validate` judges traffic and compared with the
// recorded ones. A team records its client once and checks each build of the service without it.

const SHOWN_WARNINGS = 20;
/** POST orders and GET orders/{id}. */
const ORDER_URL = /\/orders(?:\/[^/?#]+)?\/?(?:[?#]|$)/i;

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

export function replayCommand(yargs: Argv) {
  return yargs.command(
    'replay <files..>',
    'Send the client requests of recordings again to a service and judge its new answers',
    (y) =>
      withSettings(
        withReportOptions(y)
          .usage(
            '$0 replay FILE… --target URL\n\nSends the client requests of proxy recordings (NDJSON, or HAR with bodies) again to a service, in their order: a fresh order wherever the recording placed one, each checkout and upload URL replaced by the one the new order gives. The new answers are judged as validate judges traffic, and each answer that differs from the recorded one where the interface cares (status class, format, a documented member, FileType) is listed. Bodies recorded as digests cannot be sent again: record with proxy --record-bodies.',
          )
          .positional('files', {
            // Required: an empty default would only contradict that in --help.
            default: undefined,
            type: 'string',
            array: true,
            describe:
              'Recordings of the proxy (.ndjson, gzip-compressed .ndjson.gz) or HAR files, or folders of them (in name order), replayed in this order as one session',
          })
          .option('target', {
            type: 'string',
            demandOption: true,
            describe: 'Base URL of the service to replay against (where orders, checkout/… and files/… live)',
          })
          .option('recorded-base', {
            type: 'string',
            describe:
              "The recorded service's base URL, when the recording holds other hosts or paths; without it, it is learnt from the recording",
          })
          .option('header', {
            type: 'string',
            array: true,
            describe: 'Extra request header "Name: value" (repeatable); recorded credentials were redacted',
          })
          .option('token', { type: 'string', describe: 'Bearer token (env PRINT_CONFORMANCE_TOKEN)' })
          .option('client-id', {
            type: 'string',
            describe: 'OAuth client id for {target}/oauth (env PRINT_CONFORMANCE_CLIENT_ID)',
          })
          .option('client-secret', {
            type: 'string',
            describe: 'OAuth client secret (env PRINT_CONFORMANCE_CLIENT_SECRET)',
          })
          .option('only', { type: 'string', array: true, describe: 'Judge only these rule IDs or prefixes' })
          .option('skip', { type: 'string', array: true, describe: 'Skip these rule IDs or prefixes' })
          .option('strict', { type: 'boolean', default: false, describe: 'Fail on should rules too' })
          .option('format', {
            choices: ['auto', 'json', 'xml', 'both'] as const,
            default: 'auto' as const,
            describe:
              'Formats to judge: auto judges the formats and operations the replayed traffic used; json, xml or both make every selected rule required',
          })
          .option('timeout', { type: 'number', default: 30, describe: 'Seconds to wait for each answer' })
          .option('quiet', {
            type: 'boolean',
            default: false,
            describe:
              'No warnings about skipped lines and no table: the replay, the failures, the summary line and problems',
          })
          .example(
            '$0 replay session.ndjson --target https://staging.example.com/v2/ --token $TOKEN',
            'send a recorded client session to a new build',
          )
          .example(
            '$0 proxy --target http://127.0.0.1:8080/v2/ --record-bodies --record session.ndjson -- npm test',
            'record a session that can be replayed (bodies kept whole)',
          ),
        'replay',
      ),
    async (argv) => {
      const started = Date.now();
      const startedMonotonic = performance.now();
      const selected = selectedRules(argv.only, argv.skip);
      const files = expandRecordingFolders((argv.files ?? []).map(String));
      const pipe = files.find(isPipe);
      if (pipe !== undefined)
        throw new UsageError(
          `replay reads its recordings twice (first to see what it can send again, then to send it): ${isStdin(pipe) ? 'standard input' : pipe} can be read only once; save the recording to a file`,
        );
      const target = withSlash(absoluteUrl(argv.target, '--target') as string);
      const recordedBase =
        argv['recorded-base'] === undefined ? undefined : absoluteUrl(argv['recorded-base'], '--recorded-base');
      const timeoutMs = numberOption(argv.timeout, '--timeout', 0.001) * 1000;
      checkReportPlaces(argv);
      const credentials = await replayCredentials(argv, target, timeoutMs);
      // A target may echo the credentials given for it: no report or line of the replay shows them.
      noteGivenSecrets([argv.token, argv['client-secret'], ...credentialValues(credentials.headers)]);
      const secrets = givenSecrets();
      // A secret in --target's own query (?api_key=…) is masked wherever the target is named.
      const shownTarget = redactText(target, secrets);

      // Loaded here, not at start-up: the other commands and --help start faster without them.
      const [{ replayRecordings }, { replayLines }, { runResult }, { verdictsOf }, outputs] = await Promise.all([
        import('../replay/replay-session.js'),
        import('../report/replay-lines.js'),
        import('../report/run-result.js'),
        import('../validate/verdicts.js'),
        import('./result-outputs.js'),
      ]);
      const { showResult, trafficVerdictContext, writeResultReports } = outputs;
      clearPreviousReports(argv);
      const interrupt = stopOnInterrupt('replay', argv['report-dir']);
      const outcome = await replayRecordings(files, {
        target,
        credentials: credentials.headers,
        timeoutMs,
        ...(recordedBase ? { recordedBase } : {}),
      }).finally(() => interrupt.release());
      const { judged } = outcome;
      // What the target answered is shown without the credentials it may echo.
      const replay = withoutGivenSecrets(outcome.replay, secrets);
      const { tally } = judged;
      const shownWarnings = argv.quiet ? [] : judged.warnings;
      for (const warning of shownWarnings.slice(0, SHOWN_WARNINGS))
        process.stderr.write(
          `${terminalText(withoutGivenSecrets(`warning: ${files[warning.at.file]}: ${warning.message}`, secrets))}\n`,
        );
      if (shownWarnings.length > SHOWN_WARNINGS)
        process.stderr.write(`warning: … and ${shownWarnings.length - SHOWN_WARNINGS} more lines skipped\n`);
      for (const name of outcome.droppedCredentials)
        process.stderr.write(
          `warning: the recording's ${name} header was redacted and is not sent again; give --token or --header for the target's credentials\n`,
        );

      const colour = colourWanted(process.stdout);
      if (outcome.sent > 0 && outcome.answered === 0)
        throw new UsageError(`cannot reach --target ${shownTarget}: ${outcome.firstError ?? 'no answer'}`);
      if (replay.recorded > 0) process.stdout.write(replayLines(replay, files, { colour }));
      if (outcome.answered > 0 && outcome.refused === outcome.answered)
        throw new UsageError(
          "every request was refused with 401/403: check the credentials (--token, --client-id/--client-secret, --header); the recording's own were redacted",
        );
      if (replay.recorded === 0)
        throw new UsageError(
          `no exchange of the interface in ${files.join(', ')}${replay.notInterface > 0 ? ` (it holds ${replay.notInterface} exchanges that are not the interface)` : ''}`,
        );
      if (tally.exchanges === 0) {
        // The reason of a checkout or upload request says what to do; an order's only follows from it.
        const unsent = replay.exchanges.filter((entry) => entry.notReplayed !== undefined);
        const first = (unsent.find((entry) => !ORDER_URL.test(entry.recordedUrl)) ?? unsent[0])?.notReplayed;
        throw new UsageError(
          `nothing in ${files.join(', ')} could be replayed: ${replay.notReplayed} of ${replay.recorded} exchanges could not be sent again${first ? ` (${first})` : ''}`,
        );
      }

      const context = trafficVerdictContext(argv, selected);
      const result = withoutGivenSecrets(
        {
          ...runResult({
            target: `${shownTarget} (replaying ${files.join(', ')})`,
            started,
            startedMonotonic,
            context,
            rules: verdictsOf(tally, context),
            tally,
          }),
          replay,
        },
        secrets,
      );
      writeResultReports(result, argv);
      showResult(result, argv.reporter, { colour, brief: argv.quiet });
    },
  );
}
