import { parentPort } from 'node:worker_threads';
import { eachLine, type WireBatch } from './line-batch.js';
import { RecordingJudge } from './recording-judge.js';

// A worker thread of `validate` (started through judge-worker.ts): told the service's base, judges
// the batches of lines it is given (all the lines of one checkout come to the same worker, in
// order) and answers with its result when told the input ended.

export type WorkerInput =
  | { type: 'start'; base: string | undefined }
  | { type: 'lines'; batch: WireBatch }
  | { type: 'end' };

const port = parentPort;
if (!port) throw new Error('judge-worker runs as a worker thread');
let judge: RecordingJudge | undefined;

port.on('message', (message: WorkerInput) => {
  if (message.type === 'start') judge = new RecordingJudge(message.base);
  else if (!judge) throw new Error('judge-worker was given work before its start');
  else if (message.type === 'lines') {
    const started = judge;
    eachLine(message.batch, (text, at, learnOnly) => started.judgeLine(text, at, learnOnly));
    port.postMessage({ type: 'ack' });
  } else port.postMessage({ type: 'result', result: judge.finish() });
});
