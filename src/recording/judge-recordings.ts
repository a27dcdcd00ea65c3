import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Exchange } from '../validate/exchange.js';
import { harItems } from './har-reader.js';
import { baseFromOrderAnswers } from './order-base.js';
import { ndjsonLines, openRecording, recordingName, recordingSize } from './read-exchanges.js';
import { type JudgeResult, type LineRef, mergeJudgeResults, RecordingJudge } from './recording-judge.js';

// Judges whole recordings, in-process for small ones and over worker threads for large ones. Lines
// are dealt to workers by the code at the end of their request URL, so that every exchange of one
// checkout meets the same judge in recorded order (a GET is compared with the POST before it).

/** Below this many bytes, starting workers costs more than it saves. */
const PARALLEL_FROM_BYTES = 16 * 1024 * 1024;
const BATCH_LINES = 1000;
/** Batches a worker may have waiting before reading pauses: memory stays flat on huge files. */
const MAX_WAITING = 4;

export interface JudgeOptions {
  /** Worker threads; 0 picks by input size and cores, 1 judges in this thread. */
  jobs?: number;
  /** Told the number of lines read so far, about once a second. */
  progress?: (lines: number) => void;
  /** Judge only the checkouts that fall in part `index` (1-based) of `count`: one shard of a run. */
  shard?: { index: number; count: number };
  /** The service's base URL (--base-url); learnt from the traffic without it. */
  base?: string;
}

/**
 * An order answer goes to every judge of every shard, so that each learns the URLs it gave; one
 * judge of the first shard counts it (`count`), every other only learns (`learn`).
 */
type OrderLine = 'count' | 'learn' | undefined;

/** `line` and `exchange` return a promise only when the caller must wait before giving more. */
interface Sink {
  line(text: string, at: LineRef, key: string, order?: OrderLine): Promise<void> | undefined;
  exchange(exchange: Exchange, at: LineRef, key: string, order?: OrderLine): Promise<void> | undefined;
  warn(message: string, at: LineRef): void;
  finish(): Promise<JudgeResult>;
}

function inProcess(base: string | undefined): Sink {
  const judge = new RecordingJudge(base);
  return {
    line: (text, at, _key, order) => {
      judge.judgeLine(text, at, order === 'learn');
      return undefined;
    },
    exchange: (exchange, at, _key, order) => {
      judge.judge(exchange, at, order === 'learn');
      return undefined;
    },
    warn: (message, at) => judge.warn(message, at),
    finish: async () => judge.finish(),
  };
}

/**
 * `count` judges: this thread is one of them, between reading batches, and the others are worker
 * threads. On two cores that keeps two threads busy, not three fighting over them.
 */
function parallel(count: number, shards: number, base: string | undefined): Sink {
  const local = new RecordingJudge(base);
  const url = new URL('./judge-worker.js', import.meta.url);
  const workers = Array.from({ length: count - 1 }, () => {
    const worker = new Worker(url, { workerData: { base } });
    const slot = {
      worker,
      lines: [] as string[],
      refs: [] as LineRef[],
      learnOnly: [] as number[],
      waiting: 0,
      failure: undefined as Error | undefined,
    };
    worker.on('message', (message: { type: string }) => {
      if (message.type === 'ack') slot.waiting -= 1;
      worker.emit('progress');
    });
    worker.on('error', (error: Error) => {
      slot.failure = error;
      worker.emit('progress');
    });
    return slot;
  });
  type Slot = (typeof workers)[number];
  const send = async (slot: Slot) => {
    slot.worker.postMessage({ type: 'lines', lines: slot.lines, refs: slot.refs, learnOnly: slot.learnOnly });
    slot.lines = [];
    slot.refs = [];
    slot.learnOnly = [];
    slot.waiting += 1;
    while (slot.waiting > MAX_WAITING && !slot.failure) await once(slot.worker, 'progress');
    if (slot.failure) throw slot.failure;
  };
  const line = (text: string, at: LineRef, key: string, order?: OrderLine) => {
    if (order) {
      local.judgeLine(text, at, order === 'learn');
      let full: Promise<void> | undefined;
      for (const slot of workers) {
        slot.learnOnly.push(slot.lines.length);
        slot.lines.push(text);
        slot.refs.push(at);
        if (slot.lines.length >= BATCH_LINES) full = send(slot);
      }
      return full;
    }
    // Within a shard, the part of the hash the shard did not use spreads its checkouts over threads.
    const share = Math.floor(hashOf(key) / shards) % count;
    if (share === 0) {
      local.judgeLine(text, at);
      return undefined;
    }
    const slot = workers[share - 1] as Slot;
    slot.lines.push(text);
    slot.refs.push(at);
    return slot.lines.length >= BATCH_LINES ? send(slot) : undefined;
  };
  const resultOf = async (slot: Slot) => {
    if (slot.lines.length > 0) await send(slot);
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
  };
  return {
    line,
    exchange: (exchange, at, key, order) => line(JSON.stringify(exchange), at, key, order),
    warn: (message, at) => local.warn(message, at),
    finish: async () => {
      const results = await Promise.all(workers.map(resultOf));
      return mergeJudgeResults([local.finish(), ...results]);
    },
  };
}

/** FNV-1a: a cheap, stable spread of keys over workers. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

const URL_MEMBER = /"url"\s*:\s*"([^"]*)"/;

/**
 * The last path segment of a recorded request's URL, read without parsing the line: the checkout
 * or upload code. The proxy writes `request` before `response`, so the first "url" is the request's;
 * a line written otherwise still goes to one worker, only its state may be split.
 */
export function partitionKeyOfLine(line: string): string {
  const url = requestUrlOfLine(line);
  return url === undefined ? '' : partitionKeyOfUrl(url);
}

function requestUrlOfLine(line: string): string | undefined {
  return URL_MEMBER.exec(line)?.[1];
}

/** POST orders or GET orders/{id}, by the URL's last segments: answers that give URLs. */
const ORDER_PATH = /\/orders(?:\/[^/?#]+)?\/?(?:[?#]|$)/i;

function isOrderUrl(url: string): boolean {
  return ORDER_PATH.test(url);
}

function partitionKeyOfUrl(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** Standard input has no size to go by: it is judged in this thread unless --jobs says otherwise. */
function jobsFor(requested: number | undefined, bytes: number | undefined): number {
  if (requested && requested > 0) return requested;
  if (bytes === undefined || bytes < PARALLEL_FROM_BYTES) return 1;
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** Judges every exchange of the files, in order, as one stream of traffic ("-" is standard input). */
export async function judgeRecordings(files: string[], options: JudgeOptions): Promise<JudgeResult> {
  // Every file is checked before any is judged: a typo in the last name costs no wait.
  const sizes = files.map(recordingSize);
  const bytes = sizes.includes(undefined) ? undefined : sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0);
  const jobs = jobsFor(options.jobs, bytes);
  const shards = options.shard?.count ?? 1;
  // Every judge and shard takes the same base: the one given, else the one the first order names.
  const base = options.base ?? (await baseFromOrderAnswers(files));
  const sink = jobs === 1 ? inProcess(base) : parallel(jobs, shards, base);
  // Every exchange of a checkout falls in the same shard, so its GET meets the POST before it.
  const mine = (key: string) => !options.shard || hashOf(key) % shards === options.shard.index - 1;
  const firstShard = !options.shard || options.shard.index === 1;
  const orderLine: OrderLine = firstShard ? 'count' : 'learn';
  let read = 0;
  let told = Date.now();
  const tell = (count: number) => {
    read += count;
    if (options.progress && Date.now() - told >= 1000) {
      told = Date.now();
      options.progress(read);
    }
  };
  for (const [file, path] of files.entries()) {
    const recording = await openRecording(path);
    if (recording.kind === 'har') {
      for await (const batch of harItems(recording.chunks, recordingName(path))) {
        tell(batch.length);
        for (const item of batch) {
          const at = { file, line: item.entry };
          if ('warning' in item) {
            if (firstShard) sink.warn(item.warning, at);
          } else {
            const { url } = item.exchange.request;
            const order = isOrderUrl(url) ? orderLine : undefined;
            const key = partitionKeyOfUrl(url);
            if (!order && !mine(key)) continue;
            const full = sink.exchange(item.exchange, at, key, order);
            if (full) await full;
          }
        }
      }
      continue;
    }
    for await (const batch of ndjsonLines(recording.chunks)) {
      tell(batch.lines.length);
      if (firstShard) for (const warning of batch.warnings) sink.warn(warning.message, { file, line: warning.line });
      for (let index = 0; index < batch.lines.length; index += 1) {
        const text = batch.lines[index] as string;
        const url = requestUrlOfLine(text);
        const order = url !== undefined && isOrderUrl(url) ? orderLine : undefined;
        const key = url === undefined ? '' : partitionKeyOfUrl(url);
        if (!order && !mine(key)) continue;
        const full = sink.line(text, { file, line: batch.numbers[index] as number }, key, order);
        if (full) await full;
      }
    }
  }
  return sink.finish();
}
