import { availableParallelism } from 'node:os';

// How many threads judge a recording: this one, and worker threads beside it. Kept apart from the
// judging code, so that the CLI can size its threads from the command line before that code loads.

const MiB = 1024 * 1024;

/**
 * Below this many bytes, starting workers costs more than it saves. Each worker pays once for its
 * thread, for compiling the judging code anew and for running it slowly until it is optimised:
 * about 0.65 CPU-seconds, which its share of the work must outweigh. On two cores a worker shares
 * them with this thread and with the compiler's own threads: over real-shaped traffic (1.6 kB a
 * line), this thread alone judged 40 000 exchanges (62 MiB) in 1.00 s where it and a worker took
 * 1.15 s, the two broke even near 80 000 (123 MiB), and at 130 000 (200 MiB) the worker saved a
 * tenth. With more cores each worker compiles on a core of its own.
 */
function parallelFromBytes(cores: number): number {
  return cores > 2 ? 16 * MiB : 128 * MiB;
}
/** Judging threads at most, this one included, when --jobs does not say. */
const MAX_DEFAULT_JOBS = 4;
/** Threads a core may be given at most with --jobs: more only add heaps and switching, never speed. */
const MOST_JOBS_PER_CORE = 4;

/**
 * The most judging threads --jobs may ask for: a thousand threads would take gigabytes and minutes
 * to start before the first line is judged, so a number past any use is refused, not obeyed.
 */
export function mostJobs(cores = availableParallelism()): number {
  return MOST_JOBS_PER_CORE * Math.max(1, cores);
}

/**
 * Judging threads for `bytes` of recordings on `cores` cores. Standard input has no size to go by:
 * it is judged in this thread unless --jobs says otherwise.
 */
export function jobsFor(
  requested: number | undefined,
  bytes: number | undefined,
  cores = availableParallelism(),
): number {
  if (requested && requested > 0) return requested;
  if (bytes === undefined || bytes < parallelFromBytes(cores)) return 1;
  return Math.max(1, Math.min(MAX_DEFAULT_JOBS, cores));
}
