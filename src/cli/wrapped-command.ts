import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { UsageError } from '../findings/usage-error.js';

// `proxy … -- COMMAND [ARGS…]`: the command a proxy session wraps (an application's integration
// tests, say), run with the proxy's URL in its environment and its own standard streams.

export const PROXY_URL_VARIABLE = 'PRINT_CONFORMANCE_PROXY_URL';
/** The proxy's --control-token, for the command's calls to the control API (its tests' names and verdicts). */
export const CONTROL_TOKEN_VARIABLE = 'PRINT_CONFORMANCE_CONTROL_TOKEN';

/**
 * The command after the first "--" of the raw arguments, or undefined when there is none. Taken
 * from the arguments as given, not from yargs, which would turn "0x10" into 16.
 */
export function commandAfterDashes(args: readonly string[]): string[] | undefined {
  const at = args.indexOf('--');
  if (at < 0) return undefined;
  const command = args.slice(at + 1);
  if (command.length === 0 || command[0] === '')
    throw new UsageError('-- needs a command to run behind the proxy, e.g. -- npm test');
  return command;
}

/** The code a shell gives a process killed by a signal: 128 + its number. */
function signalCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** Signals that stop the session, and what the command is sent for each. */
const FORWARDED: Partial<Record<NodeJS.Signals, NodeJS.Signals>> = {
  SIGINT: 'SIGINT',
  SIGTERM: 'SIGTERM',
  SIGHUP: 'SIGHUP',
  SIGUSR2: 'SIGTERM',
};

/** Process groups are POSIX: elsewhere the command alone is signalled. */
const OWN_GROUP = process.platform !== 'win32';

/**
 * Runs the command with the proxy's URL set, no shell between (its arguments reach it as given),
 * and resolves with its exit code once it exits (128 + n when a signal n ended it). SIGINT and
 * SIGTERM sent to this process go on to the command and everything it started: the command leads a
 * process group of its own and the signal goes to the group, so that `sh -c '…; sleep 30'` or a
 * test runner's workers do not outlive a CI agent's SIGTERM to this process alone. This process
 * waits for the command to exit, or for `deadline`: then the group is killed (SIGKILL), so that a
 * command that ignores SIGTERM cannot keep the session (and the files set up for it) forever. A
 * command that cannot be started is a UsageError (one line, exit 2).
 */
export function runWrapped(
  command: readonly string[],
  proxyUrl: string,
  environment: Record<string, string> = {},
  deadline?: Promise<unknown>,
): Promise<number> {
  const [file, ...args] = command as [string, ...string[]];
  return new Promise((resolve, reject) => {
    // Listening before the command starts: a signal that came between its start and a listener
    // would end the proxy by default and leave the command's group running.
    let child: ChildProcess | undefined;
    let early: NodeJS.Signals | undefined;
    const forward = (received: NodeJS.Signals) => {
      const signal = FORWARDED[received] ?? received;
      if (!child) {
        early = signal;
        return;
      }
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (OWN_GROUP && child.pid !== undefined) {
        try {
          process.kill(-child.pid, signal);
          return;
        } catch {
          // The group is gone already, or cannot be signalled: the command itself still can.
        }
      }
      child.kill(signal);
    };
    const signals = Object.keys(FORWARDED) as NodeJS.Signals[];
    const done = () => {
      for (const signal of signals) process.off(signal, forward);
    };
    for (const signal of signals) process.on(signal, forward);
    const started = spawn(file, args, {
      stdio: 'inherit',
      env: { ...process.env, ...environment, [PROXY_URL_VARIABLE]: proxyUrl },
      detached: OWN_GROUP,
    });
    child = started;
    if (early) forward(early);
    void deadline?.then(() => forward('SIGKILL'));
    started.once('error', (error: NodeJS.ErrnoException) => {
      // After a start, 'error' only tells of a signal that could not be sent: the exit still comes.
      if (started.pid !== undefined) return;
      done();
      const why = error.code === 'ENOENT' ? 'not found' : (error.code ?? error.message);
      reject(new UsageError(`cannot start ${file}: ${why}; give -- a program on PATH or a path to one`));
    });
    started.once('exit', (code, signal) => {
      done();
      resolve(code ?? (signal ? signalCode(signal) : 1));
    });
  });
}
