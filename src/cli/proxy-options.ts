import type { Argv } from 'yargs';
import { CLIENTS_BY_OPTION } from './clients-by.js';

// The options of `print-conformance proxy`, apart from what it does with them.

export function proxyOptions(y: Argv) {
  return y
    .usage(
      "$0 proxy --target URL [options] [-- COMMAND [ARGS…]]\n\nA recording, validating reverse proxy. With \"-- COMMAND\", runs COMMAND with PRINT_CONFORMANCE_PROXY_URL set to the proxy's URL (and PRINT_CONFORMANCE_CONTROL_TOKEN to --control-token, when given) and stops when it exits: the exit code is COMMAND's when not 0, else the proxy's verdict.",
    )
    .option('target', {
      type: 'string',
      demandOption: true,
      describe: 'URL the proxy root stands for (e.g. https://test.example.com/v2/)',
    })
    .option('port', { type: 'number', default: 0, describe: 'Port to listen on (0: any free port)' })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
    .option('record', { type: 'string', describe: 'Append each exchange to this NDJSON file as it completes' })
    .option('rotate-size', {
      type: 'string',
      describe:
        'With --record: once the recording holds this much (e.g. 100MiB), it is closed on a whole line, renamed with its start time (traffic-20261128T172900Z.ndjson) and a new one begun',
    })
    .option('rotate-every', {
      type: 'string',
      describe: 'With --record: rotate the recording this often (e.g. 1h, 1d; a bare number is seconds)',
    })
    .option('rotate-gzip', {
      type: 'boolean',
      default: false,
      describe: 'Compress each rotated recording with gzip (….ndjson.gz), off the forwarding path',
    })
    .option('rotate-keep', {
      type: 'number',
      describe: 'Keep only the newest N rotated recordings, deleting older ones',
    })
    .option('drain-timeout', {
      type: 'string',
      default: '10s',
      describe:
        'On stopping, how long exchanges in flight may finish before they are cut off (a second Ctrl-C or SIGTERM stops waiting at once)',
    })
    .option('har', {
      type: 'string',
      describe: 'Also write HAR 1.2 here, entry by entry (the document is closed when the proxy stops)',
    })
    .option('record-bodies', {
      type: 'boolean',
      default: false,
      describe: 'Keep binary bodies (under --validate-limit) whole in the recording',
    })
    .option('mode', {
      choices: ['report', 'enforce'] as const,
      default: 'report' as const,
      describe: 'enforce: answer a request that breaks a must rule with 4xx, never forwarding it',
    })
    .option('violations-header', {
      type: 'boolean',
      default: true,
      describe:
        'List violations in a print-conformance-violations response header; --no-violations-header leaves answers as the target sent them',
    })
    .option('rewrite-urls', {
      type: 'boolean',
      default: true,
      describe:
        'Rewrite absolute target URLs in answers (bodies, Location) to the proxy, so clients stay behind it; --no-rewrite-urls passes them unchanged',
    })
    .option('validate-limit', {
      type: 'string',
      default: '8MiB',
      describe: 'Largest JSON/XML body kept and validated',
    })
    .option('memory-budget', {
      type: 'string',
      default: '256MiB',
      describe:
        'Most memory held for bodies at once (what holding them costs), all connections together; past it a body is forwarded and recorded as not validated (in enforce mode: refused with 503)',
    })
    .option('redact', {
      type: 'string',
      array: true,
      describe: 'More names to redact: headers, parameters, JSON members, XML elements',
    })
    .option('only', { type: 'string', array: true, describe: 'Judge only these rule IDs or prefixes' })
    .option('skip', { type: 'string', array: true, describe: 'Skip these rule IDs or prefixes' })
    .option('strict', { type: 'boolean', default: false, describe: 'Exit 1 on should rules too' })
    .option('reporter', {
      choices: ['console', 'github'] as const,
      default: 'console' as const,
      describe: 'github: also print GitHub Actions annotations for failed rules when the session ends',
    })
    .option('quiet', {
      type: 'boolean',
      default: false,
      describe:
        'No progress or per-exchange lines: the listening line, problems, the rules that failed, the summary line and where the reports went',
    })
    .option('format', {
      choices: ['auto', 'json', 'xml', 'both'] as const,
      default: 'auto' as const,
      describe:
        'Formats to judge: auto judges the formats and operations the traffic used and skips the rest (a JSON-only client is judged on the JSON rules); json, xml or both make every selected rule of those formats required',
    })
    .option('connect-timeout', {
      type: 'number',
      default: 10,
      describe:
        'Seconds the target has to take the connection (TLS included) and to begin its answer once the request has gone whole: a deadline, however it trickles; then 504',
    })
    .option('target-timeout', {
      type: 'number',
      default: 60,
      describe:
        'Seconds the target may send nothing more once its answer has begun; then 504, or the connection closes if part of the answer went out',
    })
    .option('client-timeout', {
      type: 'number',
      default: 30,
      describe:
        'Seconds a client may stay silent while sending a request head or body, or idle between requests (0: no limit while sending; idle connections close after 5 s)',
    })
    .option('headers-timeout', {
      type: 'number',
      default: 20,
      describe:
        'Seconds a client has to send a whole request head, however it trickles, and never more than twice --client-timeout; then 408 and the connection closes (0: --client-timeout alone)',
    })
    .option('max-connections', {
      type: 'number',
      default: 1000,
      describe:
        'Client connections open at once, tunnels and event streams included; when all are taken, one idle between requests or one trickling its head gives way, else a new connection is answered 503 and closed',
    })
    .option('allowed-host', {
      type: 'string',
      array: true,
      describe:
        'Host names clients may address the proxy by, besides IP addresses and localhost (".example.test" allows subdomains, "all" any name)',
    })
    .option('intercept', {
      type: 'string',
      array: true,
      describe:
        "Also intercept CONNECTs to this HOST[:PORT] (the target's host and port always are): TLS terminated with a certificate from the local CA, requests judged, recorded and sent to the target",
    })
    .option('connect-to', {
      type: 'string',
      array: true,
      describe:
        "HOST:PORT:HOST2:PORT2: connect to HOST2:PORT2 where HOST:PORT is asked for, TLS still naming HOST (curl's option; for a local serve --tls standing in for the real host)",
    })
    .option('target-ca', {
      type: 'string',
      describe: "A PEM file of CAs the target's certificate may verify against, besides the system's and the local CA",
    })
    .option('ca-dir', {
      type: 'string',
      describe: 'Folder of the local CA (default $PRINT_CONFORMANCE_CA_DIR, else ~/.config/print-conformance/ca)',
    })
    .option('client-env', {
      type: 'boolean',
      default: true,
      describe:
        'With -- COMMAND: set HTTP(S)_PROXY, NODE_USE_ENV_PROXY and the CA variables of curl, PHP, Python, Node, .NET and Java for it, so an unmodified client goes through the proxy; --no-client-env sets only PRINT_CONFORMANCE_PROXY_URL',
    })
    .option('control-token', {
      type: 'string',
      describe:
        'The control API and live page (/__print-conformance/) answer clients on this machine only; with a token, anyone sending Authorization: Bearer TOKEN (or ?token=TOKEN) (env PRINT_CONFORMANCE_PROXY_CONTROL_TOKEN)',
    })
    .option('clients-by', CLIENTS_BY_OPTION)
    .option('report-dir', {
      type: 'string',
      default: 'reports',
      describe: "Folder for the session's results.json, junit.xml and allure-results/, written when it ends",
    })
    .option('junit', { type: 'string', describe: 'Path of the JUnit report (default <report-dir>/junit.xml)' })
    .option('allure-dir', {
      type: 'string',
      describe: 'Folder of Allure results (default <report-dir>/allure-results)',
    })
    .option('json-report', {
      type: 'string',
      describe:
        "Path of the session's results.json (default <report-dir>/results.json): verdicts, what the traffic held, and a wrapped command's exit code",
    })
    .option('sarif', {
      type: 'string',
      describe: 'Write SARIF 2.1.0 here when the session ends: one result per failed rule and format',
    })
    .option('summary-md', {
      type: 'string',
      describe:
        'Also write the final summary as Markdown here (for a pull-request comment; also appended to $GITHUB_STEP_SUMMARY when set)',
    })
    .option('summary-interval', {
      type: 'number',
      default: 60,
      describe: 'Seconds between one-line progress summaries (0: only the summary at the end)',
    })
    .example(
      '$0 proxy --target http://127.0.0.1:8080/v2/ --record traffic.ndjson',
      'record and check a client talking to a local service',
    )
    .example(
      '$0 proxy --target https://test.printapi.nl/v2/ --record traffic.ndjson -- php tests/run.php',
      'an unmodified client whose code holds the real host: it sends through the proxy (HTTPS_PROXY) and trusts its local CA',
    )
    .example(
      '$0 proxy --target https://sandbox.example.com/v2/ --clients-by oauth',
      'one proxy for many client teams: a verdict per OAuth client_id (api/clients, results.json, JUnit)',
    )
    .example(
      '$0 proxy --target https://test.example.com/v2/ -- npm test',
      "run a client's tests behind the proxy (they read PRINT_CONFORMANCE_PROXY_URL); exit 1 if the client or the service broke a must rule",
    );
}
