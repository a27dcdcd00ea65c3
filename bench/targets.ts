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
  uploadRatio: number;
  uploadGrowthMiB: number;
  validatePerSecond: number;
  suiteSeconds: number;
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

export function targetRows(measured: Measured): TargetRow[] {
  return [
    ...measured.ratios.map((r) => atLeast(`proxy ÷ http-proxy, ${r.scenario}`, r.vsHttpProxy, 1)),
    ...measured.ratios.map((r) => atLeast(`proxy ÷ Prism, ${r.scenario}`, r.vsPrism, 10)),
    atLeast('1 GiB upload, proxy ÷ direct', measured.uploadRatio, 0.45),
    atMost('proxy peak memory growth, MiB', measured.uploadGrowthMiB, 16),
    atLeast('validate, exchanges/s', measured.validatePerSecond, 50_000),
    atMost('suite wall time, s', measured.suiteSeconds, 10),
  ];
}
