import { type AdminServer, startAdminServer } from './admin-server.js';
import { type LogFormat, OperationsLog } from './log.js';
import { type Face, OperationsMetrics } from './metrics.js';

// What a proxy or `serve` session runs for days with: its log (text or json), and with
// --admin-port its metrics and admin port. Metrics are made only when something can scrape them:
// without an admin port the exchange path counts nothing.

export interface OperationsSettings {
  face: Face;
  /** Undefined: no admin port, no metrics. */
  adminPort?: number;
  adminHost: string;
  logFormat: LogFormat;
  /** Text mode's writer of one line (the command's, as it has always written them). */
  text: (line: string) => void;
  /** Masks what the session keeps secret in a text of the json log. */
  redact: (text: string) => string;
  quiet?: boolean;
}

export interface Operations {
  log: OperationsLog;
  metrics?: OperationsMetrics;
  admin?: AdminServer;
  /** Listening: /readyz answers 200. */
  ready(): void;
  /** A stop began: /readyz answers 503 from now, so a load balancer drains this instance first. */
  stopping(fields?: { signal?: string }): void;
  /** The session is over: the admin port closes. */
  close(exitCode?: number): Promise<void>;
}

export async function startOperations(settings: OperationsSettings): Promise<Operations> {
  const json = settings.logFormat === 'json' ? (await import('./json-log.js')).jsonLog() : undefined;
  const log = new OperationsLog({
    text: settings.text,
    ...(json ? { json } : {}),
    redact: settings.redact,
    quiet: settings.quiet ?? false,
  });
  const metrics = settings.adminPort === undefined ? undefined : new OperationsMetrics(settings.face);
  const admin = metrics
    ? await startAdminServer({ host: settings.adminHost, port: settings.adminPort ?? 0, metrics })
    : undefined;
  let stopping = false;
  return {
    log,
    ...(metrics ? { metrics } : {}),
    ...(admin ? { admin } : {}),
    ready: () => admin?.setReadiness('ready'),
    stopping: (fields = {}) => {
      if (stopping) return;
      stopping = true;
      admin?.setReadiness('stopping');
      log.stopping(fields);
    },
    close: async (exitCode) => {
      await admin?.close();
      log.stopped(exitCode === undefined ? {} : { exitCode });
    },
  };
}
