import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { UsageError } from '../findings/usage-error.js';
import { surviveLostStreams } from '../operations/lost-streams.js';
import { noDebuggerOnSignal } from '../operations/no-debugger-signal.js';
import { stopped, stopping } from '../operations/session-events.js';
import { stopOnSignals } from '../operations/stop-signals.js';
import { redactText } from '../redaction/index.js';
import { FAULT_LIST, OPERATION_HELP, parseFault } from '../reference/faults.js';
import type { ReferenceService } from '../reference/service.js';
import { parseByteSize } from './byte-size.js';
import { CLIENTS_BY_OPTION, parseClientsBy } from './clients-by.js';
import { parseDuration } from './duration.js';
import { portOption } from './number-option.js';
import { operationsOptions, operationsSettings, startSessionOperations } from './operations-options.js';
import { withSettings } from './settings.js';

/** An absolute http(s) URL with no query or fragment, ending in "/"; else a usage error. */
function publicBaseUrl(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--public-url ${given} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--public-url ${given} is not an http or https URL`);
  if (url.search || url.hash || url.username || url.password)
    throw new UsageError(`--public-url ${given}: a base URL has no query, fragment or credentials`);
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

/**
 * Why a --webhook-url is no absolute http(s) URL, if it is not: it is checked at start. Here, not
 * beside the webhooks, which load an HTTP client that every other command would load too.
 */
function webhookUrlProblem(given: string): string | undefined {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return `--webhook-url ${given} is not an absolute URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `--webhook-url ${given} is not an http or https URL`;
  return undefined;
}

/** Addresses a service listening on every interface is reached at on this machine. */
const ANY_ADDRESS = new Set(['0.0.0.0', '::', '[::]']);

/** A certificate from the local CA for the names clients reach the service by. */
async function serviceCertificate(
  host: string,
  publicUrl: string | undefined,
  caDir: string | undefined,
): Promise<{ certPem: string; keyPem: string }> {
  const { caDirectory, loadOrCreateCa } = await import('../tls/local-ca.js');
  const ca = await loadOrCreateCa(resolve(caDirectory(caDir)));
  const names = new Set<string>([host.replace(/^\[(.*)\]$/, '$1'), 'localhost', '127.0.0.1', '::1']);
  if (ANY_ADDRESS.has(host)) {
    names.delete(host.replace(/^\[(.*)\]$/, '$1'));
    names.add(hostname());
  }
  if (publicUrl) names.add(new URL(publicUrl).hostname.replace(/^\[(.*)\]$/, '$1'));
  return ca.maker.issue([...names]);
}

export function serveCommand(yargs: Argv) {
  return yargs.command(
    'serve',
    'Start the embedded reference service (JSON and XML, as the real service speaks them, with the payment screen behind PaymentUrl)',
    (y) =>
      withSettings(
        operationsOptions(y, 'serve')
          .option('port', { type: 'number', default: 0, describe: 'Port to listen on (0: any free port)' })
          .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
          .option('max-upload', {
            type: 'string',
            default: '2GiB',
            describe: 'Largest upload accepted (bytes, or with KiB/MiB/GiB)',
          })
          .option('allowed-host', {
            type: 'string',
            array: true,
            describe:
              'Host name clients may address the service by, besides IP addresses, localhost, --host and --public-url\'s host (repeatable; ".example.test" for a domain)',
          })
          .option('public-url', {
            type: 'string',
            describe:
              'Base URL clients reach the service at, when not the address it listens on (behind a reverse proxy or port mapping): the checkout and upload URLs it hands out start with it',
          })
          .option('token', {
            type: 'string',
            describe: 'Require Authorization: Bearer <token> (env PRINT_CONFORMANCE_SERVE_TOKEN)',
          })
          .option('client-id', { type: 'string', describe: 'Require tokens from POST oauth issued to this client' })
          .option('client-secret', {
            type: 'string',
            describe: 'The secret of --client-id (env PRINT_CONFORMANCE_SERVE_CLIENT_SECRET)',
          })
          .option('tls', {
            type: 'boolean',
            default: false,
            describe:
              "Serve HTTPS, with a certificate from the local CA (see the ca command) for the address it listens on and --public-url's host",
          })
          .option('ca-dir', {
            type: 'string',
            describe: 'Folder of the local CA (default $PRINT_CONFORMANCE_CA_DIR, else ~/.config/print-conformance/ca)',
          })
          .option('control-token', {
            type: 'string',
            describe:
              'The control API and live page (/__print-conformance/) answer clients on this machine only; with a token, anyone sending Authorization: Bearer TOKEN (env PRINT_CONFORMANCE_SERVE_CONTROL_TOKEN)',
          })
          .option('clients-by', CLIENTS_BY_OPTION)
          .option('webhook-url', {
            type: 'string',
            array: true,
            describe:
              "Call this URL after each order or payment status change, as the real service calls a shop's webhook: POST, form body orderId=<id>; retried after 1, 2, 4, 8 s on an answer other than 2xx or none within 10 s (repeatable)",
          })
          .option('drain-timeout', {
            type: 'string',
            default: '10s',
            describe:
              'On stopping, how long requests in flight may finish before they are cut off (a second Ctrl-C or SIGTERM stops waiting at once)',
          })
          .option('fault', {
            type: 'string',
            array: true,
            describe: `Answer as a service on a bad day, for a client's error paths (repeatable):\n${FAULT_LIST.map(
              ([name, what]) => `  ${name}: ${what}`,
            ).join('\n')}\n${OPERATION_HELP}`,
          })
          .example('$0 serve --port 8080', 'serve on http://127.0.0.1:8080/v2/')
          .example(
            '$0 serve --fault 503:post-checkout:1 expire-tokens:20',
            'the first checkout set-up gets a 503; every token expires after 20 requests',
          )
          .example(
            '$0 serve --webhook-url http://127.0.0.1:8000/webhook',
            "call the shop's webhook handler after each payment and order status change",
          )
          .example(
            '$0 serve --tls --port 8443 --public-url https://test.printapi.nl/v2/',
            'stand in for the real host over HTTPS (behind proxy --connect-to test.printapi.nl:443:127.0.0.1:8443)',
          )
          .example(
            '$0 serve --host 0.0.0.0 --port 8080 --public-url https://sandbox.example.test/v2/',
            'serve behind a reverse proxy that forwards https://sandbox.example.test/v2/ to port 8080',
          ),
        'serve',
      ),
    async (argv) => {
      // A console that goes away (| head, a closed terminal) does not end the service, nor SIGUSR1 open a debugger.
      surviveLostStreams();
      noDebuggerOnSignal();
      // Every signal that ends the service ends it gracefully (SIGHUP from a closed terminal too).
      const stop = stopOnSignals();
      portOption(argv.port);
      const drainMs = parseDuration(argv['drain-timeout'], '--drain-timeout');
      const maxUploadBytes = parseByteSize(argv['max-upload'], '--max-upload');
      const publicUrl = argv['public-url'] === undefined ? undefined : publicBaseUrl(argv['public-url']);
      const clientSecret = argv['client-secret'];
      const faults = (argv.fault ?? []).map((given) => parseFault(String(given)));
      const webhookUrls = (argv['webhook-url'] ?? []).map(String);
      for (const url of webhookUrls) {
        const problem = webhookUrlProblem(url);
        if (problem) throw new UsageError(problem);
      }
      if (argv['client-id'] !== undefined && clientSecret === undefined)
        throw new UsageError('--client-id needs --client-secret');
      const operationsGiven = operationsSettings(argv);
      const tls = argv.tls ? await serviceCertificate(argv.host, publicUrl, argv['ca-dir']) : undefined;
      // Loaded here, not with the CLI: every other command would pay for the service's modules.
      const { startReferenceService } = await import('../reference/service.js');
      // Every line on stderr goes through the session's log: as ever in text mode, events in json.
      const operations = await startSessionOperations({
        face: 'serve',
        ...operationsGiven,
        text: (line) => process.stderr.write(`${line}\n`),
        redact: (text) => redactText(text),
      });
      const { metrics } = operations;
      let service: ReferenceService;
      try {
        service = await startReferenceService({
          port: argv.port,
          host: argv.host,
          maxUploadBytes,
          token: argv.token,
          clientId: argv['client-id'],
          clientSecret,
          publicUrl,
          faults,
          tls,
          control: { token: argv['control-token'] || undefined, clientsBy: parseClientsBy(argv['clients-by']) },
          // Browsers reach it by the names it knows alone (DNS rebinding): others are named here.
          allowedHosts: (argv['allowed-host'] ?? []).map(String),
          webhooks: {
            urls: webhookUrls,
            log: (line, tried) => {
              if (!tried) return operations.log.line(line);
              metrics?.webhookTried(tried.outcome);
              operations.log.webhookTry(line, tried);
            },
          },
          ...(metrics ? { metrics } : {}),
        });
      } catch (error) {
        await operations.close();
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE')
          throw new UsageError(`port ${argv.port} on ${argv.host} is in use; choose another with --port`);
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
          throw new UsageError(`cannot listen on ${argv.host}; use an address of this machine`);
        throw error;
      }
      const started = Date.now();
      const startedMonotonic = performance.now();
      const [{ runResult }, { verdictsOf }, { selectedRules }] = await Promise.all([
        import('../report/run-result.js'),
        import('../validate/verdicts.js'),
        import('./rule-selection.js'),
      ]);
      // The clients' traffic so far, judged as the proxy judges it: on the formats and operations it used.
      const context = {
        face: 'traffic',
        selected: selectedRules(undefined, undefined),
        formats: ['json', 'xml'],
        strict: false,
        auto: true,
      } as const;
      service.control?.setVerdicts(() => {
        const tally = service.tally();
        if (!tally) return undefined;
        return runResult({
          target: service.publicUrl,
          started,
          startedMonotonic,
          context: { ...context, formats: [...context.formats] },
          rules: verdictsOf(tally, { ...context, formats: [...context.formats] }),
          tally,
        });
      });
      // Told once everything is in place: whoever waits for the line may signal at once.
      // The admin port's line comes first: whoever waits for "listening" knows both.
      if (operations.admin) process.stdout.write(`admin on ${operations.admin.url}\n`);
      process.stdout.write(`listening on ${service.baseUrl}\n`);
      operations.ready();
      operations.log.listening({
        url: service.baseUrl,
        ...(operations.admin ? { admin: operations.admin.url } : {}),
      });
      // From the stop on /readyz answers 503 (the session's stopping event tells the operations).
      stopping({ signal: await stop.stopped });
      await service.close({ ms: drainMs, hurry: stop.hurried });
      stopped({ exitCode: 0 });
      await operations.close();
    },
  );
}
