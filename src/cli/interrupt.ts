// CLI.md: an interrupted run "could not be made": exit 2, one line on stderr, and no report that
// could pass for this run's. The previous run's reports are already gone (clearPreviousReports)
// and this run's are written whole or not at all, so stopping at once leaves nothing to undo.

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export interface InterruptGuard {
  /** The reports are written: a signal from now on ends the run with its own verdict, silently. */
  reportsWritten(exitCode: number): void;
  /** The command is over: signals get their default meaning back. */
  release(): void;
  /**
   * Something to undo if a signal ends the command, run synchronously before it exits (the exit
   * happens in the handler, so no `finally` of the command runs): a temporary folder, say.
   */
  atStop(undo: () => void): void;
}

/**
 * Stops `run` or `validate` on SIGINT/SIGTERM. Installed before anything else listens for them
 * (vitest adds a handler of its own that would exit 130), so this one decides the exit code.
 */
export function stopOnInterrupt(command: string, reportPlace: string): InterruptGuard {
  let verdict: number | undefined;
  const undos: (() => void)[] = [];
  const undoAll = () => {
    for (const undo of undos.splice(0)) {
      try {
        undo();
      } catch {
        // Stopping goes on: what could not be undone is no reason to hang on.
      }
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    undoAll();
    if (verdict !== undefined) process.exit(verdict);
    // Synchronous on files and pipes, so the line is out before the exit.
    process.stderr.write(
      `print-conformance: ${command} interrupted (${signal}); no report written to ${reportPlace}\n`,
    );
    process.exit(2);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return {
    reportsWritten(exitCode) {
      verdict = exitCode;
    },
    release() {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      undos.length = 0;
    },
    atStop(undo) {
      undos.push(undo);
    },
  };
}
