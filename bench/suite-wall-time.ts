import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', 'bin', 'print-conformance.js');

/** Wall time of `print-conformance` (the suite against the embedded default), best and median of n. */
export function benchSuiteWallTime(runs = 3) {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const reports = mkdtempSync(join(tmpdir(), 'print-conformance-bench-'));
    const started = performance.now();
    const result = spawnSync(process.execPath, [BIN, '--quiet', '--report-dir', reports], { encoding: 'utf8' });
    times.push((performance.now() - started) / 1000);
    rmSync(reports, { recursive: true, force: true });
    if (result.status !== 0) throw new Error(`the suite exited ${result.status}: ${result.stdout}${result.stderr}`);
  }
  times.sort((a, b) => a - b);
  return {
    runs,
    bestSeconds: Number(times[0]?.toFixed(2)),
    medianSeconds: Number(times[Math.floor(runs / 2)]?.toFixed(2)),
  };
}
