import type { RunResult } from '../findings/types.js';

// What `run --generate` did, in the words every report shares: cases run, the seed that repeats
// them, and each property that failed with the rule it broke.

export function generatedLines(result: RunResult): string[] {
  const generated = result.generated;
  if (!generated) return [];
  const repeat = `--generate ${generated.asked} --seed ${generated.seed}`;
  const ran = `${generated.ran} of ${generated.asked} generated cases ran${generated.interrupted ? ' (the time budget ran out: --generate-time)' : ''}`;
  const lines = [`Generated: ${ran}, seed ${generated.seed} (${repeat} repeats them)`];
  if (generated.failures.length === 0) lines.push('  no generated case broke a rule');
  for (const failure of generated.failures)
    lines.push(
      `  ${failure.property}: ${failure.rule} broken, shrunk in ${failure.shrinks} steps (see the rule above)`,
    );
  return lines;
}
