// How a long session (proxy, serve) stops. Every signal that ends it ends it gracefully: a closed
// terminal or ssh session (SIGHUP), a supervisor's SIGTERM, Ctrl-C, SIGUSR2 all start the same
// stop, and the reports and the recording are written whole. A second SIGINT or SIGTERM only
// hurries the stop (no more waiting for exchanges in flight); it never cuts the writing short.

/** Signals that stop a session. SIGUSR2 is here so that it does not end the process abruptly. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGUSR2'];
/** A second one of these, once stopping, stops waiting for exchanges in flight. */
const HURRY_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

export interface SessionStop {
  /** Settles with the first stop signal. */
  readonly stopped: Promise<NodeJS.Signals>;
  /** Settles with a second SIGINT or SIGTERM, once stopping. */
  readonly hurried: Promise<NodeJS.Signals>;
  /** Whether a stop signal came. */
  readonly stopping: () => boolean;
}

/**
 * Listens for the stop signals from now until the process exits (a signal while the reports are
 * written must not end it halfway); signal listeners keep no process alive.
 */
export function stopOnSignals(): SessionStop {
  let stopSignal: NodeJS.Signals | undefined;
  let stop!: (signal: NodeJS.Signals) => void;
  let hurry!: (signal: NodeJS.Signals) => void;
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    stop = resolve;
  });
  const hurried = new Promise<NodeJS.Signals>((resolve) => {
    hurry = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopSignal === undefined) {
      stopSignal = signal;
      stop(signal);
    } else if (HURRY_SIGNALS.includes(signal)) hurry(signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return { stopped, hurried, stopping: () => stopSignal !== undefined };
}
