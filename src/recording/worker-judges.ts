import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { JudgeSink } from './judge-sink.js';
import { takeJudgeThreads } from './judge-threads.js';
import { LineBatchBuilder } from './line-batch.js';
import { hashOf } from './line-route.js';
import type { JudgeResult, LineRef } from './recording-judge.js';

// Judges over worker threads and this one. This thread reads, judges a share of the checkouts
// itself and hands each other line's bytes to the worker its checkout falls to; the tallies are
// merged at the end. This thread judging too, rather than only reading, spares a thread: on two
// cores one worker and this thread keep both cores busy, where two workers beside a reading thread
// took as long with a third heap, and a third compiling of the judging code, to pay for. The
// threads are started before the service's base is known, so that they load the judging code
// while this thread looks for it.

/** Bytes of lines per batch: few messages, and little held in batches on the way. */
const BATCH_BYTES = 512 * 1024;
/** Batches a worker may have waiting before reading pauses: memory stays flat on huge files. */
const MAX_WAITING = 4;
/**
 * What reading and dealing a line costs this thread, against judging it: 0.75 CPU-seconds for
 * 400 000 lines of 1.6 kB against about 5 for judging them. This thread's share of the checkouts
 * is made smaller by it, so that it ends its reading and its share when the workers end theirs.
 */
const READ_COST = 0.15;
/** Parts the checkouts are dealt in: this thread takes a whole number of them. */
const PARTS = 1000;

/** The parts of PARTS this thread judges beside `workers` threads: each thread's work, reading included, alike. */
export function partsJudgedHere(workers: number): number {
  return Math.round((Math.max(0, 1 - READ_COST * workers) / (workers + 1)) * PARTS);
}

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

  /**
   * Hands the threads their lines, to be judged against `base` (the service's base URL, if known),
   * and `here` the share this thread judges, with the warnings of lines that reach no judge.
   */
  sink(base: string | undefined, here: JudgeSink): JudgeSink {
    const { slots, shards } = this;
    const partsHere = partsJudgedHere(slots.length);
    for (const slot of slots) slot.worker.postMessage({ type: 'start', base });
    const add = (slot: Slot, bytes: Uint8Array, start: number, end: number, at: LineRef, learnOnly: boolean) => {
      if (slot.batch.count > 0 && !slot.batch.fits(end - start)) send(slot);
      slot.batch.add(bytes, start, end, at, learnOnly);
      if (slot.batch.full) send(slot);
    };
    const line: JudgeSink['line'] = (bytes, start, end, at, key, order) => {
      if (order) {
        // This thread counts an order answer (unless another shard does); the workers learn from it.
        here.line(bytes, start, end, at, key, order);
        for (const slot of slots) add(slot, bytes, start, end, at, true);
        return;
      }
      const worker = workerOf(key);
      if (worker) add(worker, bytes, start, end, at, false);
      else here.line(bytes, start, end, at, key);
    };
    // Within a shard, the part of the hash the shard did not use spreads its checkouts over threads.
    const workerOf = (key: string): Slot | undefined => {
      const spread = Math.floor(hashOf(key) / shards);
      return spread % PARTS < partsHere ? undefined : slots[Math.floor(spread / PARTS) % slots.length];
    };
    return {
      line,
      exchange: (exchange, at, key, order) => {
        const worker = order ? undefined : workerOf(key);
        if (!worker) here.exchange(exchange, at, key, order);
        if (!order && !worker) return;
        const bytes = Buffer.from(JSON.stringify(exchange));
        for (const slot of worker ? [worker] : slots) add(slot, bytes, 0, bytes.length, at, !worker);
      },
      warn: (message, at) => here.warn(message, at),
      ready: () => {
        const behind = slots.filter((slot) => slot.waiting > MAX_WAITING || slot.failure);
        if (behind.length === 0) return undefined;
        return Promise.all(behind.map(caughtUp)).then(() => undefined);
      },
      finish: async () => {
        const [{ mergeJudgeResults }, results, ours] = await Promise.all([
          import('./recording-judge.js'),
          Promise.all(slots.map(resultOf)),
          here.finish(),
        ]);
        return mergeJudgeResults([ours, ...results]);
      },
    };
  }
}
