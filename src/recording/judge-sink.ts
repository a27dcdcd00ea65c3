import type { Exchange } from '../validate/exchange.js';
import { type JudgeResult, type LineRef, RecordingJudge } from './recording-judge.js';

// What the reader of recordings hands its lines to: judges in this thread or in worker threads.

/**
 * An order answer goes to every judge of every shard, so that each learns the URLs it gave; one
 * judge of the first shard counts it (`count`), every other only learns (`learn`).
 */
export type OrderLine = 'count' | 'learn' | undefined;

export interface JudgeSink {
  /** A recorded line, `bytes[start, end)`; `key` keeps the lines of one checkout with one judge. */
  line(bytes: Buffer, start: number, end: number, at: LineRef, key: string, order?: OrderLine): void;
  exchange(exchange: Exchange, at: LineRef, key: string, order?: OrderLine): void;
  warn(message: string, at: LineRef): void;
  /** A promise when the judges are behind and reading must wait for them; call between read buffers. */
  ready(): Promise<void> | undefined;
  finish(): Promise<JudgeResult>;
}

/** One judge, in this thread: for recordings too small to be worth starting workers. */
export function inProcessSink(base: string | undefined): JudgeSink {
  const judge = new RecordingJudge(base);
  return {
    line: (bytes, start, end, at, _key, order) =>
      judge.judgeLine(bytes.toString('utf8', start, end), at, order === 'learn'),
    exchange: (exchange, at, _key, order) => judge.judge(exchange, at, order === 'learn'),
    warn: (message, at) => judge.warn(message, at),
    ready: () => undefined,
    finish: async () => judge.finish(),
  };
}
