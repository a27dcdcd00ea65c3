// A large upload (--upload-size) can take minutes: at a terminal, one line a second on stderr
// says how far it got. Scripts reading stderr, and --quiet, get none.

const MIB = 1024 * 1024;

export interface UploadProgress {
  /** Counts bytes handed to the connection. */
  sent(bytes: number): void;
  /** Writes the line for now (the timer calls it every second). */
  tick(): void;
  stop(): void;
}

export interface UploadProgressOptions {
  total: number;
  write: (line: string) => void;
  /** Whether the lines reach a person: stderr is a terminal and --quiet was not given. */
  enabled: boolean;
  intervalMs?: number;
  now?: () => number;
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(bytes < 10 * MIB ? 1 : 0)} MiB`;

export function uploadProgress(options: UploadProgressOptions): UploadProgress {
  const now = options.now ?? (() => performance.now());
  const started = now();
  let done = 0;
  const tick = () => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const percent = options.total > 0 ? Math.floor((done / options.total) * 100) : 100;
    options.write(`    upload: ${mib(done)} of ${mib(options.total)} sent (${percent}%), ${mib(done / seconds)}/s`);
  };
  const timer = options.enabled ? setInterval(tick, options.intervalMs ?? 1000) : undefined;
  timer?.unref();
  return {
    sent(bytes) {
      done += bytes;
    },
    tick,
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
