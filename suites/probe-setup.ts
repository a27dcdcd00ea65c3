import { runProbes } from '../src/probes/index.js';
import { emptyTally } from '../src/validate/tally.js';
import type { SuiteSetup } from './engine.js';
import './provided.js';

// Probes the service once, before the suite files judge what it answered. The probes run here, in
// one sequence, because checkout state (what a POST set, what a GET answers) spans areas.
export async function probeService(setup: SuiteSetup): Promise<void> {
  const config = setup.provided.printConformanceConfig;
  if (!config) throw new Error('the suite was given no config');
  const progress = config.progress ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
  try {
    const results = await runProbes(config, progress, { requests: config.verbose === true });
    setup.provide('printConformanceResults', results);
  } catch (error) {
    setup.provide('printConformanceResults', {
      tally: emptyTally(),
      exchanges: 0,
      made: [],
      error: (error as Error).message,
    });
  }
}
