// The targets the benchmark is held to, each with what one run measured: the table a reader needs
// to see at once which are met and by how much the others fall short.

export interface TargetRow {
  target: string;
  measured: number;
  wanted: string;
  met: boolean;
}

interface Measured {
  ratios: { scenario: string; vsHttpProxy: number; vsPrism: number }[];
  /** Throughput of the proxy over that of a bare http-proxy passthrough, 1 GiB raw PDF. */
  uploadVsBare: number;
  uploadGrowthMiB: number;
  connectionsPeakRssMiB: number;
  validatePerSecond: number;
  validateMBPerSecond: number;
  validatePeakRssMiB: number;
  /** CPU per exchange of a recording `growth` times as large over that of the measured one. */
  validateLinearity: number;
  /** CPU per order answer learnt once the newest are bounded, over that before. */
  learntOrdersLinearity: number;
  suiteSeconds: number;
  /** HTTPS GET checkout through the proxy as HTTPS_PROXY over through mitmdump (NaN: not installed), and over direct. */
  httpsVsMitmdump: number;
  httpsVsDirect: number;
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
  const held = measured.ratios.filter((r) => TARGET_SCENARIOS.has(r.scenario));
  return [
    ...held.map((r) => atLeast(`proxy ÷ http-proxy, ${r.scenario}`, r.vsHttpProxy, 1)),
    ...held.map((r) => atLeast(`proxy ÷ Prism, ${r.scenario}`, r.vsPrism, 10)),
    atLeast('1 GiB upload, proxy ÷ http-proxy', measured.uploadVsBare, 1),
    atMost('proxy peak RSS growth in that upload, MiB', measured.uploadGrowthMiB, 16),
    atMost('proxy RSS, 1 000 mixed connections, MiB', measured.connectionsPeakRssMiB, 256),
    atLeast('validate, exchanges/s', measured.validatePerSecond, 100_000),
    atLeast('validate, MB/s', measured.validateMBPerSecond, 100),
    atMost('validate peak RSS, MiB', measured.validatePeakRssMiB, 512),
    atMost('validate CPU per exchange, 4× recording ÷ 1×', measured.validateLinearity, 1.2),
    atMost('order answers learnt, CPU per order, last ÷ first', measured.learntOrdersLinearity, 1.5),
    atMost('suite wall time, s', measured.suiteSeconds, 10),
    ...(Number.isNaN(measured.httpsVsMitmdump)
      ? []
      : [atLeast('HTTPS GET, proxy (HTTPS_PROXY) ÷ mitmdump', measured.httpsVsMitmdump, 5)]),
    atLeast('HTTPS GET, proxy (HTTPS_PROXY) ÷ direct', measured.httpsVsDirect, 0.4),
  ];
}
