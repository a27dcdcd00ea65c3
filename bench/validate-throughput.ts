import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordSuiteSession, writeReplicated } from './real-recording.js';

// `print-conformance validate` over a recording shaped like real traffic (the suite's own
// exchanges through the proxy, replicated with fresh codes; see real-recording.ts): exchanges and
// megabytes per second, CPU per exchange, and peak memory; then over a recording `growth` times
// as large, to show that time grows linearly and memory does not grow.

const BIN = join(import.meta.dirname, '..', 'bin', 'print-conformance.js');
const MB = 1e6;

/** One run of the whole command under /usr/bin/time -v: wall and CPU seconds, peak RSS. */
function judged(file: string, reports: string) {
  const run = spawnSync('/usr/bin/time', ['-v', process.execPath, BIN, 'validate', file, '--report-dir', reports], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  // 1: violations were found (the suite's requests that break rules on purpose); 2: it could not judge.
  if (run.status !== 0 && run.status !== 1)
    throw new Error(`validate exited ${run.status}: ${run.stdout.slice(-800)}${run.stderr.slice(-400)}`);
  const field = (name: string) => new RegExp(`${name}: (.+)`).exec(run.stderr)?.[1]?.trim() ?? '0';
  const clock = field('Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\)').split(':').map(Number);
  const seconds = clock.reduce((total, part) => total * 60 + part, 0);
  return {
    seconds,
    cpuSeconds: Number(field('User time \\(seconds\\)')) + Number(field('System time \\(seconds\\)')),
    peakRssMiB: Math.round(Number(field('Maximum resident set size \\(kbytes\\)')) / 1024),
  };
}

/** The whole command, run `runs` times over one file; the best run gives the rate (see proxy-cost.ts). */
export async function benchValidateThroughput(count = 100_000, runs = 3, growth = 4) {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-bench-'));
  try {
    const session = await recordSuiteSession(folder);
    const file = join(folder, 'traffic.ndjson');
    const bytes = await writeReplicated(session, count, file);
    const measured = Array.from({ length: runs }, () => judged(file, join(folder, 'reports')));
    rmSync(file);
    const best = measured.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    // CPU time moves less than wall time with other load on the machine: it says what one exchange
    // costs, where the rate says how fast a run went.
    const leastCpu = Math.min(...measured.map((m) => m.cpuSeconds));
    const largeFile = join(folder, 'large.ndjson');
    const largeBytes = await writeReplicated(session, count * growth, largeFile);
    const large = judged(largeFile, join(folder, 'reports'));
    rmSync(largeFile);
    return {
      exchanges: count,
      sessionExchanges: session.length,
      MB: Number((bytes / MB).toFixed(1)),
      runs,
      bestSeconds: Number(best.seconds.toFixed(2)),
      exchangesPerSecond: Math.round(count / best.seconds),
      MBPerSecond: Number((bytes / MB / best.seconds).toFixed(1)),
      cpuMicrosPerExchange: Math.round((leastCpu * 1e6) / count),
      peakRssMiB: Math.max(...measured.map((m) => m.peakRssMiB)),
      roundsSeconds: measured.map((m) => m.seconds.toFixed(2)).join(' / '),
      large: {
        exchanges: count * growth,
        MB: Number((largeBytes / MB).toFixed(1)),
        seconds: large.seconds,
        peakRssMiB: large.peakRssMiB,
        // CPU per exchange of the large file over that of the small one: 1 when time is linear.
        cpuPerExchangeRatio: Number((large.cpuSeconds / growth / leastCpu).toFixed(2)),
      },
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
