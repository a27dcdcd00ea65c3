import { Worker } from 'node:worker_threads';

// The worker threads that judge a recording for `validate`. Booting one and loading its judging
// code takes about 150 ms, as long as the CLI takes to load its own code, so the CLI may start
// them before it loads anything else, on a guess of how many it needs; the judging then takes
// those already started and starts only what is missing. This module loads nothing but Node.js's
// own, so that starting threads early costs no wait.

/**
 * Room for a thread's newly made objects, in MiB: what Node.js 20 gives a worker. Node.js 24 gives
 * one 192 MiB, which a judge fills between collections (it makes short-lived objects fast), so a
 * run of 400 000 exchanges over two threads peaked near 600 MiB there against 340 MiB on Node.js 20,
 * with no less CPU time for it.
 */
const YOUNG_GENERATION_MIB = 48;

/** A thread running judge-worker.js, which loads the judging code at once. */
export function startJudgeThread(): Worker {
  return new Worker(new URL('./judge-worker.js', import.meta.url), {
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MIB },
  });
}

/** Threads started before the command was parsed, not yet taken by the judging. */
let early: Worker[] = [];

/**
 * Starts `count` threads now. They do not keep the process alive until taken: a command that ends
 * without judging (a bad option, --help) exits as it would without them.
 */
export function startJudgeThreadsEarly(count: number): void {
  for (let n = 0; n < count; n += 1) {
    const worker = startJudgeThread();
    worker.unref();
    // A thread that fails to start is dropped: the judging starts a new one, which says why.
    const drop = () => {
      early = early.filter((other) => other !== worker);
    };
    worker.once('error', drop);
    worker.once('exit', drop);
    early.push(worker);
  }
}

/** `count` judging threads: those started early first, then new ones; surplus early ones end. */
export function takeJudgeThreads(count: number): Worker[] {
  const taken = early.slice(0, count);
  endEarlyJudgeThreads(count);
  for (const worker of taken) {
    worker.removeAllListeners();
    worker.ref();
  }
  while (taken.length < count) taken.push(startJudgeThread());
  return taken;
}

/** Ends the early threads that were not taken, the first `kept` excepted. */
export function endEarlyJudgeThreads(kept = 0): void {
  for (const worker of early.slice(kept)) void worker.terminate();
  early = [];
}
