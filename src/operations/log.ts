// What a proxy or `serve` tells on stderr, through one logger. In text mode each line is written as
// the tool has always written it (scripts and people read those); in json mode each is one JSON
// object on a line (`time`, `level`, `event`, `message` and the event's fields, see json-log.ts).
// Events are named here, once, and kept: a log pipeline keys on them. Lines without an event of
// their own are `notice`. Every text and field is redacted by the writer the command gives.

export type LogFormat = 'text' | 'json';
export const LOG_FORMATS = ['text', 'json'] as const;

export type LogLevel = 'info' | 'warn' | 'error';
export type LogFieldValue = string | number | boolean | readonly string[] | undefined;
export type LogFields = Record<string, LogFieldValue>;

/** The one JSON line of an event: written by json-log.ts. */
export type JsonRecord = (level: LogLevel, event: string, message: string, fields: LogFields) => void;

export interface LogOptions {
  /** Text mode's writer of a line (the command's: quiet filter, terminal-safe text, given secrets masked). */
  text: (line: string) => void;
  /** json mode's writer; absent: text mode. */
  json?: JsonRecord;
  /** Redacts a text of the log (a message, a field) in json mode, as the command's text writer does. */
  redact?: (text: string) => string;
  /** Drops lines of single exchanges (--quiet) in json mode as the text writer drops them. */
  quiet?: boolean;
}

export class OperationsLog {
  constructor(private readonly options: LogOptions) {}

  get format(): LogFormat {
    return this.options.json ? 'json' : 'text';
  }

  /** A line the tool has always printed, with no event of its own. */
  line(text: string): void {
    this.emit('info', 'notice', text, {});
  }

  /** json mode only (the listening line of text mode goes to stdout, as it always has). */
  listening(fields: { url: string; admin?: string }): void {
    this.emit('info', 'listening', `listening on ${fields.url}`, fields, false);
  }

  /** An exchange that broke rules or failed: method and path, never the query. */
  exchangeBroken(
    text: string,
    fields: { method: string; path: string; status?: number | string; rules: string[] },
  ): void {
    if (this.options.quiet) return;
    this.emit('warn', 'exchange.broken', text, fields);
  }

  handshakeRefused(text: string, fields: { host: string; port: number; alert: string }): void {
    this.emit('warn', 'handshake.refused', text, fields);
  }

  /** A recording closed and renamed, and a new one begun. */
  recordingRotated(text: string, fields: { file: string; rotatedTo: string; bytes?: number; reason?: string }): void {
    // json mode only: a rotation is routine, and text mode's stderr keeps to what needs a person.
    this.emit('info', 'recording.rotated', text, fields, false);
  }

  /** The recording stopped being written: from which exchange and why. */
  recordingFailed(text: string, fields: { file?: string; reason: string; exchange?: number }): void {
    this.emit('error', 'recording.failed', text, fields);
  }

  /** One try of serve's webhook call. */
  webhookTry(
    text: string,
    fields: { url: string; try: number; of: number; outcome: string; status?: number; durationMs: number },
  ): void {
    this.emit('info', 'webhook.try', text, fields);
  }

  /** A stop began (a signal, or a wrapped command's end): json mode only. */
  stopping(fields: { signal?: string; inFlight?: number } = {}): void {
    this.emit('info', 'stopping', 'stopping', fields, false);
  }

  /** The session's summary, once at the end: json mode only (text mode prints its table). */
  summary(text: string, fields: LogFields): void {
    this.emit('info', 'summary', text, fields, false);
  }

  stopped(fields: { exitCode?: number } = {}): void {
    this.emit('info', 'stopped', 'stopped', fields, false);
  }

  /** `inText`: whether text mode prints it (events new with json mode print nothing there). */
  private emit(level: LogLevel, event: string, text: string, fields: LogFields, inText = true): void {
    const json = this.options.json;
    if (!json) {
      if (inText) this.options.text(text);
      return;
    }
    const redact = this.options.redact ?? ((value: string) => value);
    const shown: LogFields = {};
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      shown[name] =
        typeof value === 'string' ? redact(value) : Array.isArray(value) ? value.map((v: string) => redact(v)) : value;
    }
    json(level, event, redact(text), shown);
  }
}
