import { type AdminServer, startAdminServer } from './admin-server.js';
import { type LogFormat, OperationsLog } from './log.js';
import { type Face, OperationsMetrics } from './metrics.js';
import { onSessionEvent, type SessionEvent, sessionTextLog } from './session-events.js';

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
  const beginStop = (fields: { signal?: string } = {}) => {
    if (stopping) return;
    stopping = true;
    admin?.setReadiness('stopping');
    log.stopping(fields);
  };
  // The session's own events (the recording's writer, the signals) are told through this log and
  // counted here: their text lines go through the log too, so json mode carries them as events.
  sessionTextLog(() => {});
  let stoppedTold = false;
  const stopListening = onSessionEvent((event: SessionEvent) => {
    switch (event.event) {
      case 'recording.failed':
        metrics?.recordingWriteFailed(/does not keep up|no reader/.test(event.reason) ? 'stalled' : 'write');
        log.recordingFailed(
          `print-conformance: the recording ${event.file} is incomplete: from exchange ${event.fromSeq} on nothing is written to it (${event.reason}); forwarding and judging go on`,
          { file: event.file, reason: event.reason, exchange: event.fromSeq },
        );
        break;
      case 'recording.rotated':
        log.recordingRotated(`print-conformance: ${event.file} rotated to ${event.rotatedTo}`, {
          file: event.file,
          rotatedTo: event.rotatedTo,
        });
        break;
      case 'recording.rotate-failed':
        log.line(`print-conformance: rotating ${event.file}: ${event.reason}`);
        break;
      case 'stopping':
        beginStop(event.signal === undefined ? {} : { signal: event.signal });
        break;
      case 'stopped':
        stoppedTold = true;
        log.stopped({ exitCode: event.exitCode });
        break;
    }
  });
  return {
    log,
    ...(metrics ? { metrics } : {}),
    ...(admin ? { admin } : {}),
    ready: () => admin?.setReadiness('ready'),
    stopping: beginStop,
    close: async (exitCode) => {
      stopListening();
      await admin?.close();
      if (!stoppedTold) log.stopped(exitCode === undefined ? {} : { exitCode });
    },
  };
}
