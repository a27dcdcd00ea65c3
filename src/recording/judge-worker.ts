import { parentPort, workerData } from 'node:worker_threads';
import { type LineRef, RecordingJudge } from './recording-judge.js';

// A worker thread of `validate`: judges the batches of lines it is given (all the lines of one
// checkout come to the same worker, in order) and answers with its result when told the input ended.

/** `learnOnly`: indices of order answers that another judge counts; this one learns their URLs. */
export type WorkerInput = { type: 'lines'; lines: string[]; refs: LineRef[]; learnOnly: number[] } | { type: 'end' };

const judge = new RecordingJudge((workerData as { base?: string } | undefined)?.base);
const port = parentPort;
if (!port) throw new Error('judge-worker runs as a worker thread');

port.on('message', (message: WorkerInput) => {
  if (message.type === 'end') {
    port.postMessage({ type: 'result', result: judge.finish() });
    return;
  }
  const learnOnly = new Set(message.learnOnly);
  for (let index = 0; index < message.lines.length; index += 1)
    judge.judgeLine(message.lines[index] as string, message.refs[index] as LineRef, learnOnly.has(index));
  port.postMessage({ type: 'ack' });
});
