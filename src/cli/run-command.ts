import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { TOOL_NAME, TOOL_VERSION } from '../contract/package-root.js';
import { redactText } from '../http/redact.js';
import type { Format, SuiteConfig } from '../probes/index.js';
import type { SampleType } from '../probes/sample-files.js';
import { clearAllureResults } from '../report/clear-allure-results.js';
import { consoleSummary } from '../report/console-summary.js';
import { githubAnnotations } from '../report/github-annotations.js';
import { writeJsonReport } from '../report/json-report.js';
import { exitCodeOf, foldVerdicts, type RunResult } from '../report/run-result.js';
import type { Exchange } from '../validate/exchange.js';
import { parseByteSize } from './byte-size.js';
import { numberOption } from './number-option.js';
import { optionList, selectedRules } from './rule-selection.js';
import { absoluteUrl } from './service-url.js';
import { withSettings } from './settings.js';
import { UsageError } from './usage-error.js';
import { checkReportPlaces } from './writable.js';

function parseHeaders(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header "${value}" is not "Name: value"`);
    headers[value.slice(0, colon).trim().toLowerCase()] = value.slice(colon + 1).trim();
  }
  return headers;
}

export function runCommand(yargs: Argv) {
  return yargs.command(
    ['run', '$0'],
    'Run the conformance suite against a service (default: the embedded reference service)',
    (y) =>
      withSettings(
        y
          .option('base-url', {
            type: 'string',
            describe:
              'Base URL of the service, under which orders, checkout/… and files/… live (env PRINT_CONFORMANCE_BASE_URL)',
          })
          .option('checkout-url', { type: 'string', describe: 'A checkout URL as the order endpoints gave it' })
          .option('upload-url', { type: 'string', describe: 'An upload URL as the order endpoints gave it' })
          .option('order-id', { type: 'string', describe: 'Find the URLs in GET {base}/orders/{id}' })
          .option('order-body', {
            type: 'string',
            describe: 'JSON file of the order to place (default: a built-in book order)',
          })
          .option('header', {
            type: 'string',
            array: true,
            describe: 'Extra request header "Name: value" (repeatable)',
          })
          .option('token', { type: 'string', describe: 'Bearer token (env PRINT_CONFORMANCE_TOKEN)' })
          .option('client-id', {
            type: 'string',
            describe: 'OAuth client id for {base}/oauth (env PRINT_CONFORMANCE_CLIENT_ID)',
          })
          .option('client-secret', {
            type: 'string',
            describe: 'OAuth client secret (env PRINT_CONFORMANCE_CLIENT_SECRET)',
          })
          .option('format', {
            choices: ['json', 'xml', 'both'] as const,
            default: 'both' as const,
            describe: 'Formats to probe',
          })
          .option('upload-types', { type: 'string', default: 'pdf', describe: 'Upload types to try: pdf,png,jpeg' })
          .option('upload-size', {
            type: 'string',
            describe: 'Also try one large raw upload of this size (e.g. 200MiB)',
          })
          .option('only', {
            type: 'string',
            array: true,
            describe: 'Judge only these rule IDs or prefixes (e.g. upload.)',
          })
          .option('skip', { type: 'string', array: true, describe: 'Skip these rule IDs or prefixes' })
          .option('strict', { type: 'boolean', default: false, describe: 'Fail on should rules too' })
          .option('read-only', {
            type: 'boolean',
            default: false,
            describe: 'GET checks only: create or change nothing on the service',
          })
          .option('timeout', { type: 'number', default: 30, describe: 'Seconds to wait for each answer' })
          .option('report-dir', {
            type: 'string',
            default: 'reports',
            describe: 'Folder for results.json, junit.xml and allure-results/',
          })
          .option('json-report', {
            type: 'string',
            describe: 'Path of the JSON report (default <report-dir>/results.json)',
          })
          .option('junit', { type: 'string', describe: 'Path of the JUnit report (default <report-dir>/junit.xml)' })
          .option('allure-dir', {
            type: 'string',
            describe: 'Folder of Allure results (default <report-dir>/allure-results)',
          })
          .option('reporter', {
            choices: ['console', 'github'] as const,
            default: 'console' as const,
            describe: 'github: also print GitHub Actions annotations for failed rules',
          })
          .option('quiet', { type: 'boolean', default: false, describe: 'No progress lines, only the summary' })
          .example('$0', 'run against the embedded reference service')
          .example(
            '$0 --base-url https://test.example.com/v2/ --client-id ID --client-secret SECRET',
            'run against a staging service',
          ),
        'run',
      ),
    async (argv) => {
      const started = Date.now();
      const strict = argv.strict;
      const selected = selectedRules(argv.only, argv.skip);
      const uploadTypes = optionList(argv['upload-types']);
      const badType = uploadTypes.find((t) => !['pdf', 'png', 'jpeg'].includes(t));
      if (badType) throw new UsageError(`--upload-types ${badType} is not one of pdf, png, jpeg`);
      const formats: Format[] = argv.format === 'both' ? ['json', 'xml'] : [argv.format];
      const timeoutMs = numberOption(argv.timeout, '--timeout', 0.001) * 1000;
      const uploadSize = argv['upload-size'] ? parseByteSize(argv['upload-size'], '--upload-size') : undefined;
      checkReportPlaces(argv);

      const token = argv.token;
      const clientId = argv['client-id'];
      const clientSecret = argv['client-secret'];
      if ((clientId === undefined) !== (clientSecret === undefined))
        throw new UsageError('--client-id and --client-secret go together');
      const headers = parseHeaders(optionList(argv.header).length ? (argv.header ?? []).map(String) : []);
      const secrets = [token, clientSecret].filter((s): s is string => Boolean(s));
      const credentialHeaders = Object.keys(headers).filter((name) => /authorization|api-key|token|cookie/i.test(name));
      for (const name of credentialHeaders) secrets.push(headers[name] as string);

      let orderBody: string | undefined;
      if (argv['order-body']) {
        try {
          orderBody = readFileSync(resolve(argv['order-body']), 'utf8');
          JSON.parse(orderBody);
        } catch (error) {
          throw new UsageError(`--order-body ${argv['order-body']}: ${(error as Error).message}`);
        }
      }

      const givenBase = argv['base-url'];
      // Loaded here, not at start-up: every other command (and --help) starts faster without them.
      const [{ startReferenceService }, { clientCredentialsToken }, { discoverUrls }, { ProbeRun }] = await Promise.all(
        [
          import('../reference/service.js'),
          import('../http/oauth.js'),
          import('../http/discover.js'),
          import('../probes/probe-run.js'),
        ],
      );
      const reference = givenBase ? undefined : await startReferenceService();
      try {
        let baseUrl = absoluteUrl(givenBase, '--base-url') ?? (reference?.baseUrl as string);
        if (!baseUrl.endsWith('/')) baseUrl += '/';
        const preflightExchanges: Exchange[] = [];
        if (clientId && clientSecret) {
          const { token: issued, exchange } = await clientCredentialsToken(baseUrl, clientId, clientSecret, timeoutMs);
          preflightExchanges.push(exchange);
          headers.authorization = `Bearer ${issued}`;
          secrets.push(issued);
        } else if (token) headers.authorization = `Bearer ${token}`;
        if (headers.authorization && !credentialHeaders.includes('authorization'))
          credentialHeaders.push('authorization');

        const quiet = argv.quiet;
        if (!quiet)
          process.stderr.write(
            `print-conformance ${TOOL_VERSION}: ${redactText(baseUrl, secrets)}${reference ? ' (embedded reference service)' : ''}\n`,
          );
        const urls = await discoverUrls({
          baseUrl,
          headers,
          checkoutUrl: absoluteUrl(argv['checkout-url'], '--checkout-url'),
          uploadUrl: absoluteUrl(argv['upload-url'], '--upload-url'),
          orderId: argv['order-id'],
          orderBody,
          readOnly: argv['read-only'],
          secrets,
          timeoutMs,
        });
        preflightExchanges.push(...urls.exchanges);

        const config: SuiteConfig = {
          baseUrl,
          checkoutUrl: urls.checkoutUrl,
          uploadUrls: urls.uploadUrls,
          headers,
          credentialHeaders,
          secrets,
          formats,
          uploadTypes: uploadTypes as SampleType[],
          selected: [...selected],
          strict,
          readOnly: argv['read-only'],
          timeoutMs,
          preflight: [],
        };
        if (uploadSize !== undefined) config.uploadSize = uploadSize;
        // The exchanges that found the URLs are judged too (a 5xx there is a failure like any other).
        const preflight = new ProbeRun(config);
        for (const exchange of preflightExchanges) preflight.record(exchange, { format: 'any' });
        config.preflight = preflight.findings.map(({ rule, message, exchange }) => ({ rule, message, exchange }));

        const reportDir = resolve(argv['report-dir']);
        // vitest is loaded only when a suite runs: the other commands start faster without it.
        const { runSuite } = await import('./run-suite.js');
        const allureDir = resolve(argv['allure-dir'] ?? join(reportDir, 'allure-results'));
        clearAllureResults(allureDir);
        const verdicts = await runSuite({
          config,
          progress: !quiet,
          junitFile: resolve(argv.junit ?? join(reportDir, 'junit.xml')),
          allureDir,
        });
        const folded = foldVerdicts(verdicts, strict);
        const result: RunResult = {
          tool: TOOL_NAME,
          version: TOOL_VERSION,
          target: redactText(baseUrl, secrets),
          startedAt: new Date(started).toISOString(),
          durationMs: Date.now() - started,
          ...folded,
        };
        writeJsonReport(result, resolve(argv['json-report'] ?? join(reportDir, 'results.json')));
        process.stdout.write(consoleSummary(result));
        if (argv.reporter === 'github') process.stdout.write(githubAnnotations(result));
        process.exitCode = exitCodeOf(result, strict);
      } finally {
        await reference?.close();
      }
    },
  );
}
