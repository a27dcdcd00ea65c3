// What a long session tells of its own running, each event in one function, so that each can be
// told in several ways (a line on stderr now; a log event and a metric beside it). The lines are
// the text log; a listener added with `onSessionEvent` hears every event with its fields.

export type SessionEvent =
  | { event: 'recording.failed'; file: string; fromSeq: number; reason: string }
  | { event: 'recording.rotated'; file: string; rotatedTo: string; exchanges: number }
  | { event: 'recording.rotate-failed'; file: string; reason: string }
  | { event: 'stopping'; signal?: string }
  | { event: 'stopped'; exitCode: number };

type Listener = (event: SessionEvent) => void;
const listeners: Listener[] = [];
let textLine: (line: string) => void = (line) => process.stderr.write(`${line}\n`);

/** Another way to tell the session's events (a JSON logger, a metric). */
export function onSessionEvent(listener: Listener): () => void {
  listeners.push(listener);
  return () => {
    const at = listeners.indexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
  };
}

/** Where the text lines go (the command's own log: --quiet, redaction). */
export function sessionTextLog(log: (line: string) => void): void {
  textLine = log;
}

function tell(event: SessionEvent, line: string | undefined): void {
  if (line !== undefined) textLine(line);
  for (const listener of listeners) {
    try {
      listener(event);
    } catch {
      // A listener that fails does not stop the session.
    }
  }
}

/** The recording stopped being written from exchange `fromSeq` on (1 for the first). */
export function recordingFailed(fields: { file: string; fromSeq: number; reason: string }): void {
  tell(
    { event: 'recording.failed', ...fields },
    `print-conformance: the recording ${fields.file} is incomplete: from exchange ${fields.fromSeq} on nothing is written to it (${fields.reason}); forwarding and judging go on`,
  );
}

/** The recording was closed and renamed; a new one is begun. */
export function recordingRotated(fields: { file: string; rotatedTo: string; exchanges: number }): void {
  tell({ event: 'recording.rotated', ...fields }, undefined);
}

/** A rotated recording could not be renamed, compressed or pruned. */
export function recordingRotateFailed(fields: { file: string; reason: string }): void {
  tell({ event: 'recording.rotate-failed', ...fields }, `print-conformance: rotating ${fields.file}: ${fields.reason}`);
}

/** The session begins to stop. */
export function stopping(fields: { signal?: string }): void {
  tell({ event: 'stopping', ...fields }, undefined);
}

/** The session's reports are written; it exits with this code. */
export function stopped(fields: { exitCode: number }): void {
  tell({ event: 'stopped', ...fields }, undefined);
}
