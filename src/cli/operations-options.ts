import type { Argv } from 'yargs';
import { UsageError } from '../findings/usage-error.js';
import { LOG_FORMATS, type LogFormat } from '../operations/log.js';
import type { Operations, OperationsSettings } from '../operations/session.js';
import { portOption } from './number-option.js';

// The options of a proxy or `serve` that runs for days (CLI.md, "Running for days"): an admin
// port for probes and metrics, and the log's format. Declared once for both commands.

/** @param command the command as its example starts it ("serve", "proxy --target URL"). */
export function operationsOptions<T>(y: Argv<T>, command: string) {
  return y
    .option('admin-port', {
      type: 'number',
      describe:
        'Serve GET /livez, /readyz and /metrics (Prometheus; OpenMetrics when asked) on this port (0: any free port, printed as "admin on URL")',
    })
    .option('admin-host', {
      type: 'string',
      describe: 'Address the admin port listens on (default 127.0.0.1; 0.0.0.0 for every interface)',
    })
    .option('log-format', {
      choices: LOG_FORMATS,
      default: 'text' as LogFormat,
      describe:
        'text: lines as a person reads them; json: one JSON object per line on stderr (time, level, event, message)',
    })
    .example(
      `$0 ${command} --admin-port 9464 --log-format json`,
      'probes and Prometheus metrics on port 9464 (see docs/monitoring.md); JSON lines on stderr',
    );
}

export interface OperationsArgs {
  'admin-port'?: number | undefined;
  'admin-host'?: string | undefined;
  'log-format'?: LogFormat | undefined;
}

/** The options checked: a bad one is one line and exit 2, before anything starts. */
export function operationsSettings(argv: OperationsArgs): {
  adminPort?: number;
  adminHost: string;
  logFormat: LogFormat;
} {
  const adminHost = argv['admin-host'] ?? '127.0.0.1';
  if (argv['admin-host'] !== undefined && argv['admin-port'] === undefined)
    throw new UsageError('--admin-host needs --admin-port');
  if (adminHost.trim() === '') throw new UsageError('--admin-host needs an address to listen on');
  const adminPort = argv['admin-port'] === undefined ? undefined : portOption(argv['admin-port'], '--admin-port');
  return { ...(adminPort === undefined ? {} : { adminPort }), adminHost, logFormat: argv['log-format'] ?? 'text' };
}

/** Why the admin port cannot listen, said as the command's own port says it. */
export function adminListenProblem(error: unknown, port: number, host: string): UsageError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new UsageError(`port ${port} on ${host} is in use; choose another with --admin-port`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new UsageError(`cannot listen on ${host}; use an address of this machine for --admin-host`);
  return undefined;
}

/** The session's operations started (the admin port listening), or one line saying why they cannot be. */
export async function startSessionOperations(settings: OperationsSettings): Promise<Operations> {
  const { startOperations } = await import('../operations/session.js');
  try {
    return await startOperations(settings);
  } catch (error) {
    throw adminListenProblem(error, settings.adminPort ?? 0, settings.adminHost) ?? error;
  }
}
