import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { JudgeSink } from './judge-sink.js';
import { takeJudgeThreads } from './judge-threads.js';
import { LineBatchBuilder } from './line-batch.js';
import { hashOf } from './line-route.js';
import type { JudgeResult, LineRef, LineWarning } from './recording-judge.js';

// Judges over worker threads. This thread only reads: it hands each line's bytes to the worker
// its checkout falls to and merges the workers' tallies at the end, so the judging, parsing
// included, has the cores to itself. The threads are started before the service's base is known,
// so that they load the judging code while this thread looks for it.

/** Bytes of lines per batch: few messages, and little held in batches on the way. */
const BATCH_BYTES = 512 * 1024;
/** Batches a worker may have waiting before reading pauses: memory stays flat on huge files. */
const MAX_WAITING = 4;

interface Slot {
  worker: Worker;
  batch: LineBatchBuilder;
  waiting: number;
  failure: Error | undefined;
}

function slotOf(worker: Worker): Slot {
  const slot: Slot = { worker, batch: new LineBatchBuilder(BATCH_BYTES), waiting: 0, failure: undefined };
  worker.on('message', (message: { type: string }) => {
    if (message.type === 'ack') slot.waiting -= 1;
    worker.emit('progress');
  });
  worker.on('error', (error: Error) => {
    slot.failure = error;
    worker.emit('progress');
  });
  return slot;
}

function send(slot: Slot): void {
  if (slot.failure) throw slot.failure;
  const { batch, transfer } = slot.batch.take();
  slot.worker.postMessage({ type: 'lines', batch }, transfer);
  slot.waiting += 1;
}

async function caughtUp(slot: Slot): Promise<void> {
  while (slot.waiting > MAX_WAITING && !slot.failure) await once(slot.worker, 'progress');
  if (slot.failure) throw slot.failure;
}

async function resultOf(slot: Slot): Promise<JudgeResult> {
  if (slot.batch.count > 0) send(slot);
  const answer = new Promise<JudgeResult>((resolve, reject) => {
    slot.worker.on('message', (message: { type: string; result?: JudgeResult }) => {
      if (message.type === 'result' && message.result) resolve(message.result);
    });
    slot.worker.once('error', reject);
    if (slot.failure) reject(slot.failure);
  });
  slot.worker.postMessage({ type: 'end' });
  try {
    return await answer;
  } finally {
    await slot.worker.terminate();
  }
}

export class WorkerJudges {
  private readonly slots: Slot[];

  /** Takes `count` worker threads, started early or now; `shards` the run is split into (--shard), 1 for a whole run. */
  constructor(
    count: number,
    private readonly shards: number,
  ) {
    this.slots = takeJudgeThreads(count).map(slotOf);
  }

  /** Ends the threads, when reading failed before their results were asked for. */
  async stop(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  /** Hands the threads their lines, to be judged against `base` (the service's base URL, if known). */
  sink(base: string | undefined): JudgeSink {
    const { slots, shards } = this;
    for (const slot of slots) slot.worker.postMessage({ type: 'start', base });
    // Lines skipped before they reach a judge are told here, and merged with the workers' results.
    const warnings: LineWarning[] = [];
    // The merging code is the judging code: this thread loads it only while it waits for the
    // workers anyway (or at the end), not while they wait for their first lines.
    let merging: Promise<typeof import('./recording-judge.js')> | undefined;
    const mergeCode = () => {
      merging ??= import('./recording-judge.js');
      return merging;
    };
    const add = (slot: Slot, bytes: Uint8Array, start: number, end: number, at: LineRef, learnOnly: boolean) => {
      if (slot.batch.count > 0 && !slot.batch.fits(end - start)) send(slot);
      slot.batch.add(bytes, start, end, at, learnOnly);
      if (slot.batch.full) send(slot);
    };
    const line: JudgeSink['line'] = (bytes, start, end, at, key, order) => {
      if (order) {
        // The first thread counts an order answer (unless another shard does); the others learn from it.
        for (const [index, slot] of slots.entries()) add(slot, bytes, start, end, at, index > 0 || order === 'learn');
        return;
      }
      // Within a shard, the part of the hash the shard did not use spreads its checkouts over threads.
      add(slots[Math.floor(hashOf(key) / shards) % slots.length] as Slot, bytes, start, end, at, false);
    };
    return {
      line,
      exchange: (exchange, at, key, order) => {
        const bytes = Buffer.from(JSON.stringify(exchange));
        line(bytes, 0, bytes.length, at, key, order);
      },
      warn: (message, at) => {
        warnings.push({ at, message });
      },
      ready: () => {
        const behind = slots.filter((slot) => slot.waiting > MAX_WAITING || slot.failure);
        if (behind.length === 0) return undefined;
        void mergeCode().catch(() => {});
        return Promise.all(behind.map(caughtUp)).then(() => undefined);
      },
      finish: async () => {
        const [{ mergeJudgeResults, RecordingJudge }, results] = await Promise.all([
          mergeCode(),
          Promise.all(slots.map(resultOf)),
        ]);
        const local = new RecordingJudge(base);
        for (const { message, at } of warnings) local.warn(message, at);
        return mergeJudgeResults([local.finish(), ...results]);
      },
    };
  }
}
