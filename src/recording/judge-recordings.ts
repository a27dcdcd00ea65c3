import { UsageError } from '../findings/usage-error.js';
import { inflatedSize } from './inflated-size.js';
import { jobsFor } from './judge-jobs.js';
import type { JudgeSink, OrderLine } from './judge-sink.js';
import { endEarlyJudgeThreads } from './judge-threads.js';
import { hashOf, isOrderUrl, partitionKeyOfUrl, requestUrlOfBytes } from './line-route.js';
import { RawLineSplitter } from './raw-lines.js';
import { givenTwice, openRecording, recordingName, recordingSize } from './read-exchanges.js';
import { recordedTarget } from './recorded-target.js';
import type { JudgeResult } from './recording-judge.js';
import { WorkerJudges } from './worker-judges.js';

// Judges whole recordings, in this thread for small ones and over worker threads beside this one
// for large ones. Lines are dealt to judges by the code at the end of their request URL, so that
// every exchange of one checkout meets the same judge in recorded order (a GET is compared with
// the POST before it). What only some runs need (HAR reading, the base from an order answer) is
// loaded when needed, and the judging code once the worker threads are started: they load theirs
// meanwhile.

export interface JudgeOptions {
  /** Threads that judge, this one included; 0 picks by input size and cores, 1 judges in this thread only. */
  jobs?: number;
  /** Told the number of lines read so far, about once a second. */
  progress?: (lines: number) => void;
  /** Judge only the checkouts that fall in part `index` (1-based) of `count`: one shard of a run. */
  shard?: { index: number; count: number };
  /** The service's base URL (--base-url); learnt from the traffic without it. */
  base?: string;
  /**
   * Called once, the first time reading waits for the worker threads to catch up: this thread is
   * idle then, a moment to load what comes after the judging.
   */
  whileWaiting?: () => void;
}

export interface JudgedRecordings extends JudgeResult {
  /** The bytes read of each file, as stored: the size of standard input, which has none beforehand. */
  bytesRead: number[];
}

/** Judges every exchange of the files, in order, as one stream of traffic ("-" is standard input). */
export async function judgeRecordings(files: string[], options: JudgeOptions): Promise<JudgedRecordings> {
  // Every file is checked before any is judged: a typo in the last name costs no wait.
  const sizes = files.map(recordingSize);
  const twice = givenTwice(files);
  if (twice)
    throw new UsageError(
      `${recordingName(twice[1])} is given twice (${twice[0] === twice[1] ? 'once more' : `as ${twice[0]} too`}): its exchanges would count twice; give each recording once`,
    );
  // Compressed recordings count as the text they hold: that is what is judged.
  const bytes = sizes.includes(undefined)
    ? undefined
    : sizes.reduce<number>((sum, size, index) => sum + inflatedSize(files[index] as string, size ?? 0), 0);
  const jobs = jobsFor(options.jobs, bytes);
  const shards = options.shard?.count ?? 1;
  // Worker threads load the judging code while the base is looked for; threads the CLI started
  // early for a size it guessed are taken, or ended when this thread judges alone.
  if (jobs === 1) endEarlyJudgeThreads();
  const workers = jobs === 1 ? undefined : new WorkerJudges(jobs - 1, shards);
  try {
    // Every judge and shard takes the same base: the one given, else the target the proxy that
    // made the recordings judged them under, else the one the first order names.
    const base =
      options.base ?? recordedTarget(files) ?? (await (await import('./order-base.js')).baseFromOrderAnswers(files));
    const here = (await import('./judge-sink.js')).inProcessSink(base);
    const sink = workers ? workers.sink(base, here) : here;
    return await judgeAll(files, sink, options);
  } catch (error) {
    await workers?.stop();
    throw error;
  }
}

/** Reads the files in order into `sink`, dealing lines to the shard's judges. */
async function judgeAll(files: string[], sink: JudgeSink, options: JudgeOptions): Promise<JudgedRecordings> {
  const shards = options.shard?.count ?? 1;
  // Every exchange of a checkout falls in the same shard, so its GET meets the POST before it.
  const mine = (key: string) => !options.shard || hashOf(key) % shards === options.shard.index - 1;
  const firstShard = !options.shard || options.shard.index === 1;
  const orderLine: OrderLine = firstShard ? 'count' : 'learn';
  let waited = false;
  const caughtUp = async () => {
    const behind = sink.ready();
    if (!behind) return;
    if (!waited) options.whileWaiting?.();
    waited = true;
    await behind;
  };
  let read = 0;
  let told = performance.now();
  const tell = () => {
    if (options.progress && performance.now() - told >= 1000) {
      told = performance.now();
      options.progress(read);
    }
  };
  const bytesRead: number[] = [];
  for (const [file, path] of files.entries()) {
    const recording = await openRecording(path);
    if (recording.kind === 'har') {
      const { harItems } = await import('./har-reader.js');
      for await (const batch of harItems(recording.chunks, recordingName(path))) {
        read += batch.length;
        tell();
        for (const item of batch) {
          const at = { file, line: item.entry };
          if ('warning' in item) {
            if (firstShard) sink.warn(item.warning, at);
          } else {
            const { url } = item.exchange.request;
            const order = isOrderUrl(url) ? orderLine : undefined;
            const key = partitionKeyOfUrl(url);
            if (order || mine(key)) sink.exchange(item.exchange, at, key, order);
          }
        }
        await caughtUp();
      }
      bytesRead.push(recording.bytesRead());
      continue;
    }
    // Lines are routed from their bytes: only the judge that takes a line makes text of it.
    const splitter = new RawLineSplitter();
    const lines = {
      line(bytes: Buffer, start: number, end: number, number: number) {
        read += 1;
        const url = requestUrlOfBytes(bytes, start, end);
        const order = url !== undefined && isOrderUrl(url) ? orderLine : undefined;
        const key = url === undefined ? '' : partitionKeyOfUrl(url);
        if (order || mine(key)) sink.line(bytes, start, end, { file, line: number }, key, order);
      },
      warning(line: number, message: string) {
        if (firstShard) sink.warn(message, { file, line });
      },
    };
    for await (const chunk of recording.chunks) {
      splitter.push(chunk, lines);
      tell();
      await caughtUp();
    }
    splitter.end(lines);
    bytesRead.push(recording.bytesRead());
  }
  return { ...(await sink.finish()), bytesRead };
}
