import { writeFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { runProbes } from '../src/probes/index.js';
import { redactExchange } from '../src/redaction/index.js';
import { emptyTally } from '../src/validate/tally.js';
import './provided.js';

// Probes the service once, before the suite files judge what it answered. The probes run here, in
// one sequence, because checkout state (what a POST set, what a GET answers) spans areas.
export default async function probeService(project: TestProject): Promise<void> {
  const config = project.getProvidedContext().printConformanceConfig;
  const progress = config.progress ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
  try {
    const { made, ...results } = await runProbes(config, progress, { requests: config.verbose === true });
    // Credentials are redacted before the exchanges touch the disk, as the proxy redacts its own.
    if (config.exchangesFile)
      writeFileSync(
        config.exchangesFile,
        made
          .map(
            (exchange) =>
              `${JSON.stringify(redactExchange(exchange, { names: config.credentialHeaders, secrets: config.secrets }))}\n`,
          )
          .join(''),
        { mode: 0o600 },
      );
    project.provide('printConformanceResults', results);
  } catch (error) {
    project.provide('printConformanceResults', { tally: emptyTally(), exchanges: 0, error: (error as Error).message });
  }
}
