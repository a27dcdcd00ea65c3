import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { startProxy } from '../../proxy/proxy-server.js';
import { UsageError } from '../findings/usage-error.js';
import { parseByteSize } from './byte-size.js';
import { numberOption } from './number-option.js';
import { optionList, selectedRules } from './rule-selection.js';
import { serviceUrl } from './service-url.js';
import { withSettings } from './settings.js';
import { writableFile } from './writable.js';

export function proxyCommand(yargs: Argv) {
  return yargs.command(
    'proxy',
    'Run a recording, validating reverse proxy in front of a service',
    (y) =>
      withSettings(
        y
          .option('target', {
            type: 'string',
            demandOption: true,
            describe: 'URL the proxy root stands for (e.g. https://test.example.com/v2/)',
          })
          .option('port', { type: 'number', default: 0, describe: 'Port to listen on (0: any free port)' })
          .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
          .option('record', { type: 'string', describe: 'Append each exchange to this NDJSON file as it completes' })
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
            describe: 'List violations in a print-conformance-violations response header',
          })
          .option('rewrite-urls', {
            type: 'boolean',
            default: true,
            describe: 'Rewrite absolute target URLs in answers to the proxy',
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
              'Most body bytes held for validation at once, all connections together; past it a body is forwarded and recorded as not validated',
          })
          .option('redact', {
            type: 'string',
            array: true,
            describe: 'More names to redact: headers, parameters, JSON members, XML elements',
          })
          .option('only', { type: 'string', array: true, describe: 'Judge only these rule IDs or prefixes' })
          .option('skip', { type: 'string', array: true, describe: 'Skip these rule IDs or prefixes' })
          .option('strict', { type: 'boolean', default: false, describe: 'Exit 1 on should rules too' })
          .option('connect-timeout', {
            type: 'number',
            default: 10,
            describe: 'Seconds to wait for the target to answer',
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
              'Seconds a client has to send a whole request head, however it trickles; then 408 and the connection closes (0: no limit)',
          })
          .option('max-connections', {
            type: 'number',
            default: 1000,
            describe: 'Client connections open at once; a connection beyond them is answered 503 and closed',
          })
          .option('allowed-host', {
            type: 'string',
            array: true,
            describe:
              'Host names clients may address the proxy by, besides IP addresses and localhost (".example.test" allows subdomains, "all" any name)',
          })
          .option('summary-md', {
            type: 'string',
            describe: 'Also write the final summary as Markdown here (for a pull-request comment)',
          })
          .option('summary-interval', {
            type: 'number',
            default: 60,
            describe: 'Seconds between summaries by rule (0: only at the end)',
          })
          .example(
            '$0 proxy --target http://127.0.0.1:8080/v2/ --record traffic.ndjson',
            'record and check a client talking to a local service',
          ),
        'proxy',
      ),
    async (argv) => {
      const target = serviceUrl(argv.target, '--target', 'clients send their own credentials through the proxy');
      if (!Number.isInteger(argv.port) || argv.port < 0 || argv.port > 65535)
        throw new UsageError(`--port ${argv.port} is not a port number`);
      const selected = selectedRules(argv.only, argv.skip);
      const connectTimeoutMs = numberOption(argv['connect-timeout'], '--connect-timeout', 0.001) * 1000;
      if (argv['summary-md']) writableFile(resolve(argv['summary-md']), '--summary-md');
      const clientTimeoutMs = numberOption(argv['client-timeout'], '--client-timeout') * 1000;
      const targetTimeoutMs = numberOption(argv['target-timeout'], '--target-timeout', 0.001) * 1000;
      const headersTimeoutMs = numberOption(argv['headers-timeout'], '--headers-timeout') * 1000;
      const maxConnections = numberOption(argv['max-connections'], '--max-connections', 1);
      if (!Number.isInteger(maxConnections)) throw new UsageError('--max-connections needs a whole number');
      const summaryInterval = numberOption(argv['summary-interval'], '--summary-interval');
      const redact = optionList(argv.redact);
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const { startProxy } = await import('../../proxy/proxy-server.js');
      let proxy: Awaited<ReturnType<typeof startProxy>>;
      try {
        proxy = await startProxy({
          target: target.href,
          host: argv.host,
          port: argv.port,
          mode: argv.mode,
          recordFile: argv.record ? resolve(argv.record) : undefined,
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
          log,
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE')
          throw new UsageError(`port ${argv.port} on ${argv.host} is in use; choose another with --port`);
        if (code === 'EADDRNOTAVAIL')
          throw new UsageError(`cannot listen on ${argv.host}; use an address of this machine`);
        if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR')
          throw new UsageError(`cannot write the recording: ${(error as Error).message}`);
        throw error;
      }
      process.stdout.write(`listening on ${proxy.url}\n`);
      let reported = 0;
      const periodic =
        summaryInterval > 0
          ? setInterval(() => {
              if (proxy.tally.exchanges === reported) return;
              reported = proxy.tally.exchanges;
              log(proxy.tally.format('so far'));
            }, summaryInterval * 1000)
          : undefined;
      await new Promise<void>((done) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          if (periodic) clearInterval(periodic);
          proxy.close().then(done);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      log(proxy.tally.format('summary'));
      if (argv['summary-md']) {
        try {
          writeFileSync(resolve(argv['summary-md']), proxy.tally.markdown(target.href));
        } catch (error) {
          log(
            `print-conformance: cannot write ${argv['summary-md']}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          );
        }
      }
      process.exitCode = proxy.tally.exitCode(argv.strict);
      const failure = proxy.recordingFailure();
      if (failure) {
        // The verdicts stand, but what was asked for is missing: scripts must not take it as a pass.
        log(`print-conformance: the recording is incomplete (${failure})`);
        process.exitCode = 2;
      }
    },
  );
}
