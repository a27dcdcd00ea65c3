import { join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import type { ProxyHandle, ProxyOptions } from '../../proxy/proxy-server.js';
import { formatsOf, type RuleId, ruleById } from '../contract/rules.js';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import { surviveLostStreams } from '../operations/lost-streams.js';
import { noDebuggerOnSignal } from '../operations/no-debugger-signal.js';
import { stopped, stopping } from '../operations/session-events.js';
import { type SessionStop, stopOnSignals } from '../operations/stop-signals.js';
import { writeFileWhole } from '../output/output-file.js';
import {
  commandLineSecrets,
  givenSecrets,
  noteGivenSecrets,
  redactText,
  withoutGivenSecrets,
  withoutLiterals,
} from '../redaction/index.js';
import { terminalText } from '../report/terminal-text.js';
import type { VerdictContext } from '../validate/verdicts.js';
import { parseByteSize } from './byte-size.js';
import { parseClientsBy } from './clients-by.js';
import { parseDuration } from './duration.js';
import { parseConnectTo, parseIntercept, readTargetCa } from './interception-options.js';
import { numberOption, portOption } from './number-option.js';
import { operationsOptions, operationsSettings, startSessionOperations } from './operations-options.js';
import { proxyOptions } from './proxy-options.js';
import { reportsLine } from './reports-line.js';
import { optionList, selectedRules } from './rule-selection.js';
import { serviceUrl } from './service-url.js';
import { withSettings } from './settings.js';
import { CONTROL_TOKEN_VARIABLE, commandAfterDashes, runWrapped } from './wrapped-command.js';
import { checkReportPlaces, distinctOutputs } from './writable.js';

/** The log line of one exchange: "POST /v2/checkout/abc → 400  rule (request)". */
const EXCHANGE_LINE = /^[A-Z]+ \/\S* → /;

type ProxyArgs = Awaited<ReturnType<ReturnType<typeof proxyOptions>['parseAsync']>>;

/** Rules of a format the clients do not speak are not reported in answers, the log or the recording. */
function reportedRules(selected: ReadonlySet<RuleId>, formats: readonly ('json' | 'xml')[]): Set<string> {
  return new Set([...selected].filter((id) => formatsOf(ruleById(id)).some((f) => f === 'any' || formats.includes(f))));
}

/** The proxy's options from the command line, each checked: a bad one is one line and exit 2. */
function proxySettings(argv: ProxyArgs, selected: Set<string>): Omit<ProxyOptions, 'log'> {
  const target = serviceUrl(argv.target, '--target', 'clients send their own credentials through the proxy');
  portOption(argv.port);
  const connectTimeoutMs = numberOption(argv['connect-timeout'], '--connect-timeout', 0.001) * 1000;
  // The session's reports go where run's go, checked as run checks them, before anything starts.
  checkReportPlaces(argv);
  const reportDir = resolve(argv['report-dir']);
  distinctOutputs([
    ['--record', argv.record],
    ['--har', argv.har],
    ['--summary-md', argv['summary-md']],
    ['--json-report', argv['json-report'] ?? join(reportDir, 'results.json')],
    ['--junit', argv.junit ?? join(reportDir, 'junit.xml')],
    ['--sarif', argv.sarif],
  ]);
  const clientTimeoutMs = numberOption(argv['client-timeout'], '--client-timeout') * 1000;
  const targetTimeoutMs = numberOption(argv['target-timeout'], '--target-timeout', 0.001) * 1000;
  const headersTimeoutMs = numberOption(argv['headers-timeout'], '--headers-timeout') * 1000;
  const maxConnections = numberOption(argv['max-connections'], '--max-connections', 1);
  if (!Number.isInteger(maxConnections)) throw new UsageError('--max-connections needs a whole number');
  const redact = optionList(argv.redact);
  const stopTimeoutMs = parseDuration(argv['drain-timeout'], '--drain-timeout');
  return {
    target: target.href,
    host: argv.host,
    port: argv.port,
    mode: argv.mode,
    recordFile: argv.record ? resolve(argv.record) : undefined,
    ...rotationOf(argv),
    stopTimeoutMs,
    harFile: argv.har ? resolve(argv.har) : undefined,
    recordBodies: argv['record-bodies'],
    validateLimit: parseByteSize(argv['validate-limit'], '--validate-limit'),
    memoryBudget: parseByteSize(argv['memory-budget'], '--memory-budget'),
    rewriteUrls: argv['rewrite-urls'],
    violationsHeader: argv['violations-header'],
    redact: { headers: redact, members: redact },
    selected,
    strict: argv.strict,
    connectTimeoutMs,
    clientTimeoutMs,
    headersTimeoutMs,
    targetTimeoutMs,
    maxConnections,
    allowedHosts: optionList(argv['allowed-host']),
    intercept: optionList(argv.intercept).map(parseIntercept),
    connectTo: optionList(argv['connect-to']).map(parseConnectTo),
    targetCa: argv['target-ca'] ? readTargetCa(argv['target-ca']) : undefined,
    caDir: argv['ca-dir'] ? resolve(argv['ca-dir']) : undefined,
    controlToken: argv['control-token'] || undefined,
    clientsBy: parseClientsBy(argv['clients-by']),
  };
}

/** --rotate-*: when and how the recording is rotated; each needs --record. */
function rotationOf(argv: ProxyArgs): Pick<ProxyOptions, 'rotation'> {
  const size = argv['rotate-size'];
  const every = argv['rotate-every'];
  const keep = argv['rotate-keep'];
  const given = [
    ['--rotate-size', size],
    ['--rotate-every', every],
    ['--rotate-keep', keep],
    ['--rotate-gzip', argv['rotate-gzip'] || undefined],
  ] as const;
  const first = given.find(([, value]) => value !== undefined);
  if (!first) return {};
  if (!argv.record) throw new UsageError(`${first[0]} rotates the --record file: give --record FILE too`);
  if (size === undefined && every === undefined)
    throw new UsageError(`${first[0]} needs --rotate-size SIZE or --rotate-every DURATION to say when to rotate`);
  const sizeBytes = size === undefined ? undefined : parseByteSize(size, '--rotate-size');
  if (sizeBytes !== undefined && sizeBytes < 1) throw new UsageError('--rotate-size needs a size of at least 1 byte');
  if (keep !== undefined && (!Number.isInteger(keep) || keep < 1))
    throw new UsageError('--rotate-keep needs a whole number of at least 1');
  return {
    rotation: {
      ...(sizeBytes === undefined ? {} : { sizeBytes }),
      ...(every === undefined ? {} : { everyMs: parseDuration(every, '--rotate-every', 1000) }),
      gzip: argv['rotate-gzip'],
      ...(keep === undefined ? {} : { keep }),
    },
  };
}

/** Starts the proxy, or says in one line why it cannot listen or record. */
async function start(options: ProxyOptions): Promise<ProxyHandle> {
  // Loaded here: it needs node's HTTP parser, and says so in one line when this Node.js lacks it.
  const { startProxy } = await import('../../proxy/proxy-server.js');
  try {
    return await startProxy(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`port ${options.port} on ${options.host} is in use; choose another with --port`);
    if (code === 'EADDRNOTAVAIL')
      throw new UsageError(`cannot listen on ${options.host}; use an address of this machine`);
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR' || code === 'EUNSAFE')
      throw new UsageError(`cannot write the recording: ${(error as Error).message}`);
    throw error;
  }
}

/**
 * Wrapping a command, a stop signal goes on to it; a command that does not end within the drain
 * timeout (it ignores SIGTERM), or a second signal, ends it (SIGKILL to its group): the session
 * ends either way, its trust files removed and its reports written.
 */
function commandDeadline(stop: SessionStop, drainMs: number): Promise<void> {
  return stop.stopped.then(
    () =>
      new Promise<void>((resolve) => {
        setTimeout(resolve, drainMs).unref();
        void stop.hurried.then(() => resolve());
      }),
  );
}

export function proxyCommand(yargs: Argv) {
  return yargs.command(
    'proxy',
    'Run a recording, validating reverse proxy in front of a service (or, with -- COMMAND, around a command)',
    (y) => withSettings(operationsOptions(proxyOptions(y), 'proxy --target https://staging.example.test/v2/'), 'proxy'),
    async (argv) => {
      // A console that goes away (| head, a closed terminal) does not end the session, nor SIGUSR1 open a debugger.
      surviveLostStreams();
      noDebuggerOnSignal();
      // Listened for from the start: a SIGTERM with no listener would end the proxy before it
      // flushed the recording and summary. Every signal that ends the session ends it gracefully
      // (SIGHUP from a closed terminal too); one that comes while it starts stops it once it listens.
      const stop = stopOnSignals();
      void stop.stopped.then((signal) => stopping({ signal }));
      const wrapped = commandAfterDashes(hideBin(process.argv));
      const formats: ('json' | 'xml')[] =
        argv.format === 'json' || argv.format === 'xml' ? [argv.format] : ['json', 'xml'];
      // On traffic, the formats and operations it used decide unless the user named them (CLI.md).
      const auto = argv.format === 'auto' && argv.only === undefined;
      const selected = selectedRules(argv.only, argv.skip);
      const settings = proxySettings(argv, reportedRules(selected, formats));
      const operationsGiven = operationsSettings(argv);
      // Credentials the user gave, on the wrapped command's line too (https://user:pass@…,
      // --password=…, -u user:pass): written nowhere, even when the service echoes them.
      noteGivenSecrets([settings.controlToken, ...commandLineSecrets(wrapped ?? [])]);
      const secrets = givenSecrets();
      const summaryInterval = argv.quiet ? 0 : numberOption(argv['summary-interval'], '--summary-interval');
      // --quiet drops the line each exchange gets (request line, arrow, answer), never a problem.
      // Lines quote traffic: printed as text a terminal does not act on.
      const textLine = (line: string) => {
        if (!argv.quiet || !EXCHANGE_LINE.test(line))
          process.stderr.write(`${terminalText(withoutLiterals(line, secrets))}\n`);
      };
      // Every line on stderr goes through the session's log: as ever in text mode, events in json.
      const operations = await startSessionOperations({
        face: 'proxy',
        ...operationsGiven,
        text: textLine,
        redact: (text) => redactText(withoutLiterals(text, secrets)),
        quiet: argv.quiet,
      });
      const log = (line: string) => operations.log.line(line);
      const started = Date.now();
      const startedMonotonic = performance.now();
      // The verdict's code loads while the proxy starts: not before this command runs, and not at its end.
      const reporting = Promise.all([
        import('./proxy-verdict.js'),
        import('../report/console-summary.js'),
        import('../report/write-reports.js'),
        import('../report/github-annotations.js'),
        import('./markdown-outputs.js'),
      ]);
      // Starting may fail first: the verdict's code is then not waited for, nor its failure left unhandled.
      reporting.catch(() => {});
      // The CA a wrapped client is told to trust exists before the proxy starts, which trusts it too.
      const clientCa =
        wrapped && argv['client-env']
          ? await import('../tls/local-ca.js').then(({ loadOrCreateCa, caDirectory }) =>
              loadOrCreateCa(caDirectory(settings.caDir)),
            )
          : undefined;
      const proxy = await start({
        ...settings,
        redact: { ...settings.redact, secrets },
        log,
        events: operations.log,
        ...(operations.metrics ? { metrics: operations.metrics } : {}),
      }).catch(async (error) => {
        await operations.close();
        throw error;
      });
      const clientEnv = clientCa
        ? (await import('./client-environment.js')).clientEnvironment(proxy.url, clientCa.certPath, clientCa.certPem)
        : undefined;
      // However the process ends (short of SIGKILL), the trust files made for the command go with it.
      if (clientEnv) process.once('exit', () => clientEnv.remove());
      // Wrapping a command, standard output is the command's own: the line goes to stderr.
      // The admin port's line comes first: whoever waits for "listening" knows both.
      if (operations.admin) (wrapped ? process.stderr : process.stdout).write(`admin on ${operations.admin.url}\n`);
      (wrapped ? process.stderr : process.stdout).write(`listening on ${proxy.url}\n`);
      operations.ready();
      operations.log.listening({ url: proxy.url, ...(operations.admin ? { admin: operations.admin.url } : {}) });
      if (clientEnv && !argv.quiet)
        log(
          `print-conformance: set for the command: ${clientEnv.names.join(', ')} (--no-client-env sets none of them)`,
        );
      if (!argv.quiet) log(`print-conformance: live page and control API at ${proxy.url}__print-conformance/`);
      const context: VerdictContext = {
        face: 'traffic',
        selected,
        formats,
        strict: argv.strict,
        ...(auto ? { auto } : {}),
      };
      // What the session's verdict is made of, now: the control API asks while it runs, the end once.
      const sessionFacts = () => ({
        // A secret in --target's query (?api_key=…) is masked in every report that names it.
        target: redactText(settings.target),
        proxyUrl: proxy.url,
        started,
        startedMonotonic,
        context,
        traffic: proxy.traffic,
        recordingFailure: proxy.recordingFailure(),
        clientTests: proxy.tests.all(),
        ...(settings.clientsBy?.kind !== 'none'
          ? { clients: { by: settings.clientsBy, tally: proxy.clients.data } }
          : {}),
      });
      reporting
        .then(([{ proxyVerdict }]) =>
          proxy.verdicts(() => withoutGivenSecrets(proxyVerdict(sessionFacts()).result, secrets)),
        )
        .catch(() => {});
      let reported = 0;
      const periodic =
        summaryInterval > 0
          ? setInterval(() => {
              if (proxy.traffic.seen === reported) return;
              reported = proxy.traffic.seen;
              log(proxy.traffic.progress());
            }, summaryInterval * 1000)
          : undefined;
      let commandCode = 0;
      try {
        if (wrapped)
          commandCode = await runWrapped(
            wrapped,
            proxy.url,
            {
              ...clientEnv?.variables,
              // The command's tests name themselves to the control API, which then asks for the token.
              ...(settings.controlToken ? { [CONTROL_TOKEN_VARIABLE]: settings.controlToken } : {}),
            },
            commandDeadline(stop, settings.stopTimeoutMs ?? 10_000),
          );
        else await stop.stopped;
      } finally {
        // The wrapped command's end stops the session too; from here /readyz answers 503, so a load
        // balancer drains this proxy while its exchanges finish.
        if (!stop.stopping()) stopping({});
        clearInterval(periodic);
        clientEnv?.remove();
        await proxy.close(stop.hurried);
      }
      const [{ proxyVerdict }, { terminalWidth }, { writeReports }, { githubAnnotations }, { appendJobSummary }] =
        await reporting;
      const verdict = withoutGivenSecrets(
        proxyVerdict({
          ...sessionFacts(),
          ...(wrapped ? { command: { command: wrapped.join(' '), exitCode: commandCode } } : {}),
          ...(clientEnv ? { clientEnvironment: clientEnv.names } : {}),
          width: terminalWidth(wrapped ? process.stderr : process.stdout),
          brief: argv.quiet,
        }),
        secrets,
      );
      // The table goes where run prints its own; wrapping a command, stdout is the command's.
      // It quotes traffic: printed as text a terminal does not act on.
      (wrapped ? process.stderr : process.stdout).write(terminalText(verdict.text));
      if (operations.log.format === 'text') process.stderr.write(terminalText(verdict.problems));
      else for (const line of verdict.problems.split('\n')) if (line.trim()) log(line);
      const counts = verdict.result.summary;
      operations.log.summary(`${counts.passed} passed, ${counts.failed} failed, ${counts.warnings} warnings`, {
        ...verdict.result.summary,
        exchanges: proxy.traffic.seen,
        answeredByTarget: proxy.traffic.reached,
        failedRules: verdict.result.rules.filter((rule) => rule.status === 'failed').map((rule) => rule.id),
        exitCode: verdict.exitCode,
      });
      // In a GitHub Actions job: the annotations beside the table, the summary on the run's page.
      if (argv.reporter === 'github')
        (wrapped ? process.stderr : process.stdout).write(githubAnnotations(verdict.result));
      appendJobSummary(verdict.markdown);
      let reportFailed = false;
      if (argv['summary-md']) {
        try {
          writeFileWhole(resolve(argv['summary-md']), verdict.markdown);
        } catch (error) {
          log(
            `print-conformance: cannot write ${argv['summary-md']}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          );
          reportFailed = true;
        }
      }
      // The reports of a session, as run writes them; one that cannot be written is said, and the
      // session exits 2 as every command does (the traffic went through either way).
      try {
        const places = {
          reportDir: argv['report-dir'],
          jsonReport: argv['json-report'],
          junit: argv.junit,
          allureDir: argv['allure-dir'],
          sarif: argv.sarif,
        };
        writeReports(verdict.result, places);
        // Where they went, as run says it: beside the table (stderr when a command holds stdout).
        (wrapped ? process.stderr : process.stdout).write(
          reportsLine({ ...places, ...(argv['summary-md'] ? { summaryMd: argv['summary-md'] } : {}) }),
        );
      } catch (error) {
        log(`print-conformance: cannot write the reports: ${fileProblem(error)}`);
        reportFailed = true;
      }
      process.exitCode = reportFailed ? 2 : verdict.exitCode;
      stopped({ exitCode: process.exitCode });
      await operations.close();
    },
  );
}
