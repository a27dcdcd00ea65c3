import { rmSync } from 'node:fs';
import { Recorder } from '../../proxy/recorder.js';
import { fileProblem } from '../findings/file-problem.js';
import { splitObservations } from '../findings/observations.js';
import { UsageError } from '../findings/usage-error.js';
import { redactExchange } from '../redaction/index.js';
import type { Exchange } from '../validate/exchange.js';
import { judgeTraffic, TrafficState } from '../validate/traffic.js';

// run --record FILE / --har FILE: the suite's own exchanges written as the proxy writes a session
// (NDJSON, HAR 1.2, its target named, findings in `violations` and `observations`, credentials
// redacted), so that a service team can hand them to validate, replay or a bug report.

export interface RunRecordingPlaces {
  record?: string;
  har?: string;
}

/**
 * Writes the exchanges (those that found the URLs first, then the probes') judged as the proxy
 * judges traffic under its target. `secrets`/`names`: what is redacted from them, as the proxy
 * redacts its own before they touch the disk.
 */
export async function writeRunRecording(
  places: RunRecordingPlaces,
  target: string,
  exchanges: { found: Exchange[]; probed: Exchange[] },
  redaction: { names: string[]; secrets: string[] },
): Promise<void> {
  // A recording of one run: the proxy appends to a session's file, a run starts its own.
  if (places.record) rmSync(places.record, { force: true });
  let failure: string | undefined;
  let recorder: Recorder;
  try {
    recorder = new Recorder(places.record, places.har, (message) => (failure ??= message), target);
  } catch (error) {
    throw new UsageError(`cannot write the recording: ${fileProblem(error)}`);
  }
  await recorder.ready();
  const state = new TrafficState(target);
  for (const made of [...exchanges.found, ...exchanges.probed]) {
    const exchange = redactExchange(made, redaction);
    const judged = judgeTraffic(exchange, state).judgement;
    const { violations, observations } = splitObservations(judged?.violations ?? []);
    recorder.record({ ...exchange, violations, observations });
  }
  await recorder.close();
  if (failure) throw new UsageError(failure);
}
