import { statSync } from 'node:fs';
import { inflatedSize } from '../recording/inflated-size.js';
import { jobsFor, mostJobs } from '../recording/judge-jobs.js';
import { startJudgeThreadsEarly } from '../recording/judge-threads.js';

// `validate` of a large recording judges over worker threads beside its own, each of which takes
// about as long to boot and load the judging code as the CLI takes to load its own. Started from the command line
// as given, before the CLI's code loads, they are ready when the recording is read. This is only a
// guess from the raw arguments (--jobs, the recordings' sizes): the command still decides with its
// parsed options, takes the threads it needs and ends the others. A value from the config file is
// not read here; the command then starts its threads itself, as it would without this.

/** A whole number of threads from --jobs N, --jobs=N or the environment; undefined when not given. */
function requestedJobs(args: readonly string[], env: NodeJS.ProcessEnv): number | undefined {
  const at = args.findIndex((arg) => arg === '--jobs' || arg.startsWith('--jobs='));
  const given = at < 0 ? (env.PRINT_CONFORMANCE_VALIDATE_JOBS ?? env.PRINT_CONFORMANCE_JOBS) : undefined;
  const text = at < 0 ? given : args[at]?.startsWith('--jobs=') ? args[at]?.slice('--jobs='.length) : args[at + 1];
  const jobs = Number(text);
  // A number the command will refuse starts nothing here.
  return text !== undefined && Number.isInteger(jobs) && jobs > 0 && jobs <= mostJobs() ? jobs : undefined;
}

/**
 * Bytes of the recordings named after the command, taking every argument that names a file as
 * one; undefined when standard input is read ("-"), which has no size.
 */
function recordingBytes(args: readonly string[]): number | undefined {
  let bytes = 0;
  for (const arg of args) {
    if (arg === '-') return undefined;
    if (arg.startsWith('-')) continue;
    const stats = statSync(arg, { throwIfNoEntry: false });
    if (stats?.isFile()) bytes += inflatedSize(arg, stats.size);
  }
  return bytes;
}

/** Threads `validate` will likely judge with, when `args` (after node and the script) run it; 1 if none. */
export function guessedValidateJobs(args: readonly string[], env: NodeJS.ProcessEnv): number {
  const command = args.findIndex((arg) => !arg.startsWith('-'));
  if (args[command] !== 'validate' || args.some((arg) => arg === '--help' || arg === '-h')) return 1;
  const rest = args.slice(command + 1);
  return jobsFor(requestedJobs(rest, env), recordingBytes(rest));
}

/** Starts the threads `validate` will likely judge with, when `args` run it. */
export function startValidateThreadsEarly(args: readonly string[], env = process.env): void {
  try {
    const jobs = guessedValidateJobs(args, env);
    if (jobs > 1) startJudgeThreadsEarly(jobs - 1);
  } catch {
    // A guess that cannot be made starts nothing: the command starts its threads as it would.
  }
}
