import type { TestProject } from 'vitest/node';
import { runProbes } from '../src/probes/index.js';
import { emptyTally } from '../src/validate/tally.js';
import './provided.js';

// Probes the service once, before the suite files judge what it answered. The probes run here, in
// one sequence, because checkout state (what a POST set, what a GET answers) spans areas.
export default async function probeService(project: TestProject): Promise<void> {
  const config = project.getProvidedContext().printConformanceConfig;
  const progress = config.progress ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
  try {
    const results = await runProbes(config, progress, { requests: config.verbose === true });
    project.provide('printConformanceResults', results);
  } catch (error) {
    project.provide('printConformanceResults', { tally: emptyTally(), exchanges: 0, error: (error as Error).message });
  }
}
