import type { Argv } from 'yargs';
import { withReportOptions } from './report-options.js';
import { withSettings } from './settings.js';

export function runCommand(yargs: Argv) {
  return yargs.command(
    ['run', '$0'],
    'Run the conformance suite against a service (default: the embedded reference service)',
    (y) =>
      withSettings(
        withReportOptions(y)
          .option('base-url', {
            type: 'string',
            describe:
              'Base URL of the service, under which orders, checkout/… and files/… live (env PRINT_CONFORMANCE_BASE_URL)',
          })
          .option('checkout-url', { type: 'string', describe: 'A checkout URL as the order endpoints gave it' })
          .option('upload-url', { type: 'string', describe: 'An upload URL as the order endpoints gave it' })
          .option('other-checkout-url', {
            type: 'string',
            describe:
              "Another order's checkout URL: two checkouts set up with different values each read back their own",
          })
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
          .option('quiet', {
            type: 'boolean',
            default: false,
            describe: 'No progress lines and no table: the failures, the summary line and where the reports went',
          })
          .option('record', {
            type: 'string',
            describe:
              "Write the suite's own exchanges here as NDJSON, as the proxy records (for validate, replay, a bug report)",
          })
          .option('har', { type: 'string', describe: "Write the suite's own exchanges here as HAR 1.2" })
          .option('verbose', {
            type: 'boolean',
            default: false,
            describe: 'Every request and verdict as it comes, and the service profile in the summary',
          })
          .option('generate', {
            type: 'string',
            describe:
              'After the fixed probes, N generated checkout set-ups and uploads (valid and invalid, JSON and XML); a failure is shrunk to a minimal request. --generate alone: 100',
          })
          .option('seed', {
            type: 'string',
            describe: 'Seed of the generated tests: the same seed sends the same requests',
          })
          .option('generate-time', {
            type: 'number',
            default: 60,
            describe: 'Seconds the generated tests may take in all (what is left is reported as not run)',
          })
          .example('$0', 'run against the embedded reference service')
          .example('$0 --generate 200 --seed 42', 'add 200 generated set-ups and uploads, repeatable with the seed')
          .example(
            '$0 --base-url https://test.example.com/v2/ --client-id ID --client-secret SECRET',
            'run against a staging service',
          ),
        'run',
      ),
    async (argv) => {
      // The suite's code is loaded when it runs: every other command starts without it.
      const { runConformance } = await import('./run-conformance.js');
      await runConformance({
        baseUrl: argv['base-url'],
        checkoutUrl: argv['checkout-url'],
        uploadUrl: argv['upload-url'],
        otherCheckoutUrl: argv['other-checkout-url'],
        orderId: argv['order-id'],
        orderBody: argv['order-body'],
        header: argv.header,
        token: argv.token,
        clientId: argv['client-id'],
        clientSecret: argv['client-secret'],
        format: argv.format,
        uploadTypes: argv['upload-types'],
        uploadSize: argv['upload-size'],
        only: argv.only,
        skip: argv.skip,
        strict: argv.strict,
        readOnly: argv['read-only'],
        timeout: argv.timeout,
        reportDir: argv['report-dir'],
        jsonReport: argv['json-report'],
        junit: argv.junit,
        allureDir: argv['allure-dir'],
        summaryMd: argv['summary-md'],
        sarif: argv.sarif,
        reporter: argv.reporter,
        quiet: argv.quiet,
        verbose: argv.verbose,
        record: argv.record,
        har: argv.har,
        generate: argv.generate,
        seed: argv.seed,
        generateTime: argv['generate-time'],
      });
    },
  );
}
