// The targets the benchmark is held to, each with what one run measured: the table a reader needs
// to see at once which are met and by how much the others fall short.

export interface TargetRow {
  target: string;
  measured: number;
  wanted: string;
  met: boolean;
}

/** What one run measured; a part not run (BENCH_ONLY) is undefined, and its targets are left out. */
interface Measured {
  ratios?: {
    scenario: string;
    vsHttpProxy: number;
    vsPrism: number;
    rpsVsBase?: number;
    cpuVsBase?: number;
    /** CPU per request with --admin-port (metrics counted, scraped) over without. */
    cpuAdminVsPlain?: number;
  }[];
  /** Throughput of the proxy over that of a bare http-proxy passthrough, 1 GiB raw PDF. */
  uploadVsBare?: number;
  uploadGrowthMiB?: number;
  connectionsPeakRssMiB?: number;
  validatePerSecond?: number;
  /** Exchanges a second over the recording `growth` times as large (400 000 exchanges). */
  validateLargePerSecond?: number;
  validateMBPerSecond?: number;
  validatePeakRssMiB?: number;
  /** CPU per exchange of a recording `growth` times as large over that of the measured one. */
  validateLinearity?: number;
  /** CPU per order answer learnt once the newest are bounded, over that before. */
  learntOrdersLinearity?: number;
  suiteSeconds?: number;
  /** HTTPS GET checkout through the proxy as HTTPS_PROXY over through mitmdump (NaN: not installed), and over direct. */
  httpsVsMitmdump?: number;
  httpsVsDirect?: number;
  /** The major version of the Node.js that ran the bench: validate is held to more on newer lines. */
  nodeMajor?: number;
}

/** validate's floor in exchanges a second: 100 000 on Node.js 20 and 22, 120 000 from Node.js 24 on. */
export function validateFloor(nodeMajor = Number(process.versions.node.split('.')[0])): number {
  return nodeMajor >= 24 ? 120_000 : 100_000;
}

const atLeast = (target: string, measured: number, floor: number): TargetRow => ({
  target,
  measured,
  wanted: `≥ ${floor}`,
  met: measured >= floor,
});
const atMost = (target: string, measured: number, ceiling: number): TargetRow => ({
  target,
  measured,
  wanted: `≤ ${ceiling}`,
  met: measured <= ceiling,
});

/** The scenarios whose ratios are targets; POST checkout is measured and shown beside them. */
const TARGET_SCENARIOS = new Set(['GET json', 'GET xml']);

export function targetRows(measured: Measured): TargetRow[] {
  const held = (measured.ratios ?? []).filter((r) => TARGET_SCENARIOS.has(r.scenario));
  const rows: (TargetRow | undefined)[] = [
    ...held.map((r) => atLeast(`proxy ÷ http-proxy, ${r.scenario}`, r.vsHttpProxy, 1)),
    ...held.map((r) => atLeast(`proxy ÷ Prism, ${r.scenario}`, r.vsPrism, 10)),
    // Beside the base build (BENCH_BASE): as fast within 5 %, and as cheap in CPU per request within 5 %.
    ...held.flatMap((r) =>
      r.rpsVsBase === undefined ? [] : [atLeast(`proxy ÷ base build, ${r.scenario}`, r.rpsVsBase, 0.95)],
    ),
    ...held.flatMap((r) =>
      r.cpuVsBase === undefined
        ? []
        : [atMost(`proxy CPU per request ÷ base build's, ${r.scenario}`, r.cpuVsBase, 1.05)],
    ),
    // Counting metrics costs a proxied GET at most 3 % more CPU (BENCH_WAYS=proxy,proxy-admin).
    ...held.flatMap((r) =>
      r.cpuAdminVsPlain === undefined
        ? []
        : [atMost(`proxy CPU per request, --admin-port ÷ without, ${r.scenario}`, r.cpuAdminVsPlain, 1.03)],
    ),
    given(measured.uploadVsBare, (m) => atLeast('1 GiB upload, proxy ÷ http-proxy', m, 1)),
    given(measured.uploadGrowthMiB, (m) => atMost('proxy peak RSS growth in that upload, MiB', m, 16)),
    given(measured.connectionsPeakRssMiB, (m) => atMost('proxy RSS, 1 000 mixed connections, MiB', m, 256)),
    given(measured.validatePerSecond, (m) => atLeast('validate, exchanges/s', m, validateFloor(measured.nodeMajor))),
    given(measured.validateLargePerSecond, (m) =>
      atLeast('validate, exchanges/s at 400 000 exchanges', m, validateFloor(measured.nodeMajor)),
    ),
    given(measured.validateMBPerSecond, (m) => atLeast('validate, MB/s', m, 100)),
    given(measured.validatePeakRssMiB, (m) => atMost('validate peak RSS, MiB', m, 512)),
    given(measured.validateLinearity, (m) => atMost('validate CPU per exchange, 4× recording ÷ 1×', m, 1.2)),
    given(measured.learntOrdersLinearity, (m) => atMost('order answers learnt, CPU per order, last ÷ first', m, 1.5)),
    given(measured.suiteSeconds, (m) => atMost('suite wall time, s', m, 10)),
    given(measured.httpsVsMitmdump, (m) =>
      Number.isNaN(m) ? undefined : atLeast('HTTPS GET, proxy (HTTPS_PROXY) ÷ mitmdump', m, 8),
    ),
    given(measured.httpsVsDirect, (m) => atLeast('HTTPS GET, proxy (HTTPS_PROXY) ÷ direct', m, 0.6)),
  ];
  return rows.filter((row): row is TargetRow => row !== undefined);
}

/** The row of a measure that was taken; none for a part not run. */
function given(measured: number | undefined, row: (measured: number) => TargetRow | undefined): TargetRow | undefined {
  return measured === undefined ? undefined : row(measured);
}
