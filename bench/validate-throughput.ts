import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordSuiteSession, writeReplicated } from './real-recording.js';
import { BIN, builds } from './start-cli.js';

// `print-conformance validate` over a recording shaped like real traffic (the suite's own
// exchanges through the proxy, replicated with fresh codes; see real-recording.ts): exchanges and
// megabytes per second, CPU per exchange, and peak memory; then over a recording `growth` times
// as large, to show that time grows linearly and memory does not grow. With BENCH_BASE (see
// start-cli.ts), the base build judges the same files, its runs taken in turn with this one's.

const MB = 1e6;

/** One run of the whole command under /usr/bin/time -v: wall and CPU seconds, peak RSS. */
function judged(file: string, reports: string, bin = BIN) {
  const run = spawnSync('/usr/bin/time', ['-v', process.execPath, bin, 'validate', file, '--report-dir', reports], {
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

type Run = ReturnType<typeof judged>;

/** `runs` runs of each build over one file, the builds in turn (the other one first every other run). */
function judgedInTurn(file: string, reports: string, runs: number): Map<string, Run[]> {
  const ways = builds();
  const measured = new Map<string, Run[]>(ways.map(({ build }) => [build, []]));
  for (let run = 0; run < runs; run += 1)
    for (const { build, bin } of run % 2 === 0 ? ways : [...ways].reverse())
      measured.get(build)?.push(judged(file, reports, bin));
  return measured;
}

const best = (runs: Run[]) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));

/**
 * The whole command, run `runs` times over one file; the best run gives the rate (see
 * proxy-cost.ts); then `runs` times over a file `growth` times as large, the best run again.
 */
export async function benchValidateThroughput(count = 100_000, runs = 3, growth = 4) {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-bench-'));
  try {
    const session = await recordSuiteSession(folder);
    const file = join(folder, 'traffic.ndjson');
    const bytes = await writeReplicated(session, count, file);
    const loadAverages = [
      loadavg()
        .map((n) => n.toFixed(2))
        .join(' '),
    ];
    const small = judgedInTurn(file, join(folder, 'reports'), runs);
    rmSync(file);
    const largeFile = join(folder, 'large.ndjson');
    const largeBytes = await writeReplicated(session, count * growth, largeFile);
    loadAverages.push(
      loadavg()
        .map((n) => n.toFixed(2))
        .join(' '),
    );
    const large = judgedInTurn(largeFile, join(folder, 'reports'), runs);
    loadAverages.push(
      loadavg()
        .map((n) => n.toFixed(2))
        .join(' '),
    );
    rmSync(largeFile);
    const summary = (build: string) => {
      const measured = small.get(build) ?? [];
      const largeRuns = large.get(build) ?? [];
      // CPU time moves less than wall time with other load on the machine: it says what one exchange
      // costs, where the rate says how fast a run went.
      const leastCpu = Math.min(...measured.map((m) => m.cpuSeconds));
      const leastLargeCpu = Math.min(...largeRuns.map((m) => m.cpuSeconds));
      const bestLarge = best(largeRuns);
      return {
        exchanges: count,
        sessionExchanges: session.length,
        MB: Number((bytes / MB).toFixed(1)),
        runs,
        bestSeconds: Number(best(measured).seconds.toFixed(2)),
        exchangesPerSecond: Math.round(count / best(measured).seconds),
        MBPerSecond: Number((bytes / MB / best(measured).seconds).toFixed(1)),
        cpuMicrosPerExchange: Math.round((leastCpu * 1e6) / count),
        peakRssMiB: Math.max(...measured.map((m) => m.peakRssMiB)),
        roundsSeconds: measured.map((m) => m.seconds.toFixed(2)).join(' / '),
        large: {
          exchanges: count * growth,
          MB: Number((largeBytes / MB).toFixed(1)),
          seconds: bestLarge.seconds,
          exchangesPerSecond: Math.round((count * growth) / bestLarge.seconds),
          cpuMicrosPerExchange: Math.round((leastLargeCpu * 1e6) / (count * growth)),
          peakRssMiB: Math.max(...largeRuns.map((m) => m.peakRssMiB)),
          roundsSeconds: largeRuns.map((m) => m.seconds.toFixed(2)).join(' / '),
          // CPU per exchange of the large file over that of the small one: 1 when time is linear.
          cpuPerExchangeRatio: Number((leastLargeCpu / growth / leastCpu).toFixed(2)),
        },
      };
    };
    const base = small.has('base') ? { base: summary('base') } : {};
    return { ...summary('this'), ...base, loadAverages };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

// Alone: `npx tsx bench/validate-throughput.ts` (BENCH_BASE for the base build beside this one).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { large, base, loadAverages, ...small } = await benchValidateThroughput();
  const rows: Record<string, unknown> = { this: small, [`this ×${large.exchanges / small.exchanges}`]: large };
  if (base) {
    const { large: baseLarge, ...baseSmall } = base;
    rows.base = baseSmall;
    rows[`base ×${baseLarge.exchanges / baseSmall.exchanges}`] = baseLarge;
  }
  console.table(rows);
  console.log('load averages (before, between, after):', loadAverages);
}
