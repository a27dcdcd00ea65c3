import type { RunResult } from '../findings/types.js';
import { writeFileWhole } from './write-file.js';

/** results.json: the machine-readable verdict of a run (CLI.md, "Reports"). */
export function jsonReport(result: RunResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

export function writeJsonReport(result: RunResult, file: string): void {
  writeFileWhole(file, jsonReport(result));
}
