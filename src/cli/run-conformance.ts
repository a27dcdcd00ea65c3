import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TOOL_VERSION } from '../contract/package-root.js';
import { RULES, type RuleId } from '../contract/rules.js';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import type { Format, SuiteConfig } from '../probes/index.js';
import type { SampleType } from '../probes/sample-files.js';
import { credentialValues, noteGivenSecrets, redactText } from '../redaction/index.js';
import { colourWanted } from '../report/colour.js';
import { consoleSummary, terminalWidth } from '../report/console-summary.js';
import { githubAnnotations } from '../report/github-annotations.js';
import { runResult } from '../report/run-result.js';
import { writeReports } from '../report/write-reports.js';
import type { Exchange } from '../validate/exchange.js';
import { emptyTally, type TallyData } from '../validate/tally.js';
import { exitCodeOf } from '../validate/verdicts.js';
import { absoluteUrl, baseUrlOf } from './base-url.js';
import { parseByteSize } from './byte-size.js';
import { generateOptions } from './generate-options.js';
import { parseHeaders } from './header-option.js';
import { stopOnInterrupt } from './interrupt.js';
import { writeMarkdownOutputs } from './markdown-outputs.js';
import { numberOption } from './number-option.js';
import { reportsLine } from './reports-line.js';
import { optionList, selectedRules } from './rule-selection.js';
import { writeRunRecording } from './run-recording.js';
import { configFileUsed } from './settings.js';
import { staleUrlProblem } from './stale-urls.js';
import { checkReportPlaces, clearPreviousReports, distinctOutputs, writableFile } from './writable.js';

// The use case behind `print-conformance run`: find the URLs, probe the service through the
// suite, and write every report from the one set of verdicts.

/** The config file the run took options from: found upward, it may set the target and the rules. */
function configNote(): string {
  const path = configFileUsed();
  return path ? ` (options from ${path})` : '';
}

export interface RunOptions {
  baseUrl?: string;
  checkoutUrl?: string;
  otherCheckoutUrl?: string;
  uploadUrl?: string;
  orderId?: string;
  orderBody?: string;
  header?: unknown;
  token?: string;
  clientId?: string;
  clientSecret?: string;
  format: 'json' | 'xml' | 'both';
  uploadTypes: string;
  uploadSize?: string;
  only?: unknown;
  skip?: unknown;
  strict: boolean;
  readOnly: boolean;
  timeout: number;
  reportDir: string;
  jsonReport?: string;
  junit?: string;
  allureDir?: string;
  summaryMd?: string;
  sarif?: string;
  reporter: 'console' | 'github';
  quiet: boolean;
  verbose?: boolean;
  /** The suite's own exchanges, as the proxy records them. */
  record?: string;
  har?: string;
  generate?: string;
  seed?: string;
  generateTime?: number;
}

function readOrderBody(file: string | undefined): string | undefined {
  if (!file) return undefined;
  let body: string;
  try {
    body = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw new UsageError(`--order-body ${file}: ${fileProblem(error)}`);
  }
  try {
    JSON.parse(body);
  } catch (error) {
    throw new UsageError(`--order-body ${file}: not JSON (${(error as Error).message})`);
  }
  return body;
}

/** Every answer the probes got was a 401 or 403: the run showed the credentials, not the service. */
function refusedForCredentials(answers: TallyData['answers']): boolean {
  const all = Object.values(answers).flatMap((byAnswer) => Object.entries(byAnswer ?? {}));
  return all.length > 0 && all.every(([answer]) => /^40[13]\b/.test(answer));
}

export async function runConformance(options: RunOptions): Promise<void> {
  const started = Date.now();
  const startedMonotonic = performance.now();
  const { strict } = options;
  const selected: Set<RuleId> = selectedRules(options.only, options.skip);
  const uploadTypes = optionList(options.uploadTypes);
  const badType = uploadTypes.find((t) => !['pdf', 'png', 'jpeg'].includes(t));
  if (badType) throw new UsageError(`--upload-types ${badType} is not one of pdf, png, jpeg`);
  const formats: Format[] = options.format === 'both' ? ['json', 'xml'] : [options.format];
  const timeoutMs = numberOption(options.timeout, '--timeout', 0.001) * 1000;
  const uploadSize = options.uploadSize ? parseByteSize(options.uploadSize, '--upload-size') : undefined;
  // Every option is read before anything is sent: a typo must not place an order on a service.
  const generate = generateOptions(options);
  const places = {
    'report-dir': options.reportDir,
    'json-report': options.jsonReport,
    junit: options.junit,
    'allure-dir': options.allureDir,
    'summary-md': options.summaryMd,
    sarif: options.sarif,
  };
  checkReportPlaces(places);
  const recording = { record: options.record, har: options.har };
  for (const [option, file] of Object.entries(recording)) if (file) writableFile(resolve(file), `--${option}`);
  distinctOutputs([
    ['--record', options.record],
    ['--har', options.har],
    ['--json-report', options.jsonReport ?? join(resolve(options.reportDir), 'results.json')],
    ['--junit', options.junit ?? join(resolve(options.reportDir), 'junit.xml')],
    ['--summary-md', options.summaryMd],
    ['--sarif', options.sarif],
  ]);

  const { token, clientId, clientSecret } = options;
  if ((clientId === undefined) !== (clientSecret === undefined))
    throw new UsageError('--client-id and --client-secret go together');
  const headers = parseHeaders(optionList(options.header).length ? (options.header as unknown[]).map(String) : []);
  const secrets = [token, clientSecret].filter((s): s is string => Boolean(s));
  const credentialHeaders = Object.keys(headers).filter((name) => /authorization|api-key|token|cookie/i.test(name));
  for (const name of credentialHeaders) secrets.push(headers[name] as string);
  // Any header the user gives may be a credential (X-Shop-Key): its value is masked as one.
  secrets.push(...credentialValues(headers).filter((value) => !secrets.includes(value)));
  noteGivenSecrets(secrets);
  const orderBody = readOrderBody(options.orderBody);
  const checkoutUrl = absoluteUrl(options.checkoutUrl, '--checkout-url');
  const uploadUrl = absoluteUrl(options.uploadUrl, '--upload-url');
  const otherCheckoutUrl = absoluteUrl(options.otherCheckoutUrl, '--other-checkout-url');
  if (otherCheckoutUrl !== undefined && checkoutUrl === undefined)
    throw new UsageError('--other-checkout-url goes with --checkout-url (the first of the two checkouts)');
  if (otherCheckoutUrl !== undefined && otherCheckoutUrl === checkoutUrl)
    throw new UsageError('--other-checkout-url must name another checkout than --checkout-url');
  // Only a run given no URL at all is a run against the embedded service.
  const givenBase = baseUrlOf({ baseUrl: options.baseUrl, checkoutUrl, uploadUrl });

  // Loaded here, not at start-up: every other command (and --help) starts faster without them.
  const [
    { startReferenceService },
    { clientCredentialsToken },
    { discoverUrls, secondCheckout },
    { ProbeRun },
    { suiteContext },
  ] = await Promise.all([
    import('../reference/service.js'),
    import('../http/oauth.js'),
    import('../http/discover.js'),
    import('../probes/probe-run.js'),
    import('../probes/index.js'),
  ]);
  clearPreviousReports(places);
  const interrupt = stopOnInterrupt('run', options.reportDir);
  let reference: Awaited<ReturnType<typeof startReferenceService>> | undefined;
  try {
    if (!givenBase) {
      reference = await startReferenceService();
      // Its received uploads (gigabytes with --upload-size) must not outlive an interrupted run.
      const uploads = reference.uploadFolder;
      interrupt.atStop(() => rmSync(uploads, { recursive: true, force: true }));
    }
    const baseUrl = givenBase ?? (reference?.baseUrl as string);
    const preflightExchanges: Exchange[] = [];
    if (clientId && clientSecret) {
      const { token: issued, exchange } = await clientCredentialsToken(baseUrl, clientId, clientSecret, timeoutMs);
      preflightExchanges.push(exchange);
      headers.authorization = `Bearer ${issued}`;
      secrets.push(issued);
      noteGivenSecrets([issued]);
    } else if (token) headers.authorization = `Bearer ${token}`;
    if (headers.authorization && !credentialHeaders.includes('authorization')) credentialHeaders.push('authorization');

    if (!options.quiet)
      process.stderr.write(
        `print-conformance ${TOOL_VERSION}: ${redactText(baseUrl, secrets)}${reference ? ' (embedded reference service)' : ''}${configNote()}\n`,
      );
    // The one way the URLs are found, for the checkout probed and the second one beside it.
    const discovery = {
      baseUrl,
      headers,
      checkoutUrl,
      uploadUrl,
      orderId: options.orderId,
      orderBody,
      readOnly: options.readOnly,
      secrets,
      timeoutMs,
    };
    const urls = await discoverUrls(discovery);
    preflightExchanges.push(...urls.exchanges);
    const second = otherCheckoutUrl
      ? { checkoutUrl: otherCheckoutUrl, exchanges: [] }
      : await secondCheckout(discovery);
    preflightExchanges.push(...second.exchanges);

    const config: SuiteConfig = {
      baseUrl,
      checkoutUrl: urls.checkoutUrl,
      ...(second.checkoutUrl ? { secondCheckoutUrl: second.checkoutUrl } : {}),
      uploadUrls: urls.uploadUrls,
      headers,
      credentialHeaders,
      secrets,
      formats,
      uploadTypes: uploadTypes as SampleType[],
      selected: RULES.filter((rule) => selected.has(rule.id)).map((rule) => rule.id),
      strict,
      readOnly: options.readOnly,
      timeoutMs,
      preflight: emptyTally(),
    };
    if (uploadSize !== undefined) config.uploadSize = uploadSize;
    if (generate) config.generate = generate;
    // The exchanges that found the URLs are judged too (a 5xx there is a failure like any other).
    const preflight = new ProbeRun(config);
    for (const exchange of preflightExchanges) preflight.record(exchange, { format: 'any' });
    config.preflight = preflight.tally.data;

    // The suite's engine and files are loaded only when a suite runs: other commands start without them.
    const { runSuite } = await import('./run-suite.js');
    const outcome = await runSuite({ config, progress: !options.quiet, verbose: options.verbose === true });
    if (refusedForCredentials(outcome.answers))
      throw new UsageError(
        'every request was refused with 401/403: check the credentials (--token, --client-id/--client-secret, --header)',
      );
    const stale = staleUrlProblem(outcome.answers, {
      checkoutUrl: redactText(config.checkoutUrl, secrets),
      ...(config.uploadUrls.content || config.uploadUrls.cover
        ? { uploadUrl: redactText((config.uploadUrls.content ?? config.uploadUrls.cover) as string, secrets) }
        : {}),
    });
    if (stale) throw new UsageError(stale);
    const result = runResult({
      target: redactText(baseUrl, secrets),
      started,
      startedMonotonic,
      context: suiteContext(config),
      rules: outcome.rules,
      tally: {
        exchanges: preflightExchanges.length + outcome.exchanges,
        answers: outcome.answers,
        coverage: outcome.coverage,
      },
      ...(outcome.generated ? { generated: outcome.generated } : {}),
    });
    writeReports(result, {
      reportDir: options.reportDir,
      jsonReport: options.jsonReport,
      junit: options.junit,
      allureDir: options.allureDir,
      sarif: options.sarif,
    });
    writeMarkdownOutputs(result, options.summaryMd);
    if (options.record || options.har)
      await writeRunRecording(
        recording,
        redactText(baseUrl, secrets),
        { found: preflightExchanges, probed: outcome.made },
        { names: credentialHeaders, secrets },
      );
    interrupt.reportsWritten(exitCodeOf(result.rules));
    process.stdout.write(
      consoleSummary(result, {
        colour: colourWanted(process.stdout),
        width: terminalWidth(process.stdout),
        profile: options.verbose === true,
        brief: options.quiet,
      }),
    );
    if (options.reporter === 'github') process.stdout.write(githubAnnotations(result));
    process.stdout.write(reportsLine(options));
    process.exitCode = exitCodeOf(result.rules);
  } finally {
    await reference?.close();
    interrupt.release();
  }
}
