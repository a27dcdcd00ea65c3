import { availableParallelism } from 'node:os';

// How many worker threads judge a recording. Kept apart from the judging code, so that the CLI can
// size its threads from the command line before that code is loaded.

const MiB = 1024 * 1024;

/**
 * Below this many bytes, starting workers costs more than it saves. Each worker pays once for its
 * thread and for compiling the judging code anew, which its share of the work must outweigh. On
 * two cores the workers share them with this thread and with the compiler's own threads: one
 * thread judged 20 000 exchanges (32 MB) in 0.65-0.70 s where two workers took 0.77-0.81 s, and
 * the two broke even near 40 000 (64 MB). With more cores each worker compiles on a core of its own.
 */
function parallelFromBytes(cores: number): number {
  return cores > 2 ? 16 * MiB : 64 * MiB;
}
/** Worker threads at most, when --jobs does not say. */
const MAX_DEFAULT_JOBS = 4;

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
