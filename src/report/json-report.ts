import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunResult } from './run-result.js';

/** results.json: the machine-readable verdict of a run. */
export function writeJsonReport(result: RunResult, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const rules = result.rules.map(({ formats: _formats, ...rule }) => rule);
  writeFileSync(file, `${JSON.stringify({ ...result, rules }, null, 2)}\n`);
}
