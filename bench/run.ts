import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchProxyCost } from './proxy-cost.js';
import { benchReferenceUpload } from './reference-upload.js';
import { benchSuiteWallTime } from './suite-wall-time.js';
import { targetRows } from './targets.js';
import { benchValidateThroughput } from './validate-throughput.js';

// `npm run bench`: one run on loopback that writes reports/bench.json and prints the tables.
// Ratios, not absolute numbers, are the result: the load generator shares the machine.

const step = (what: string) => process.stderr.write(`${what}…\n`);
const results: Record<string, unknown> = { startedAt: new Date().toISOString(), node: process.version };

step('proxy cost: GET/POST checkout, JSON/XML, 32 connections, four ways');
const proxyCost = await benchProxyCost();
results.proxyCost = proxyCost;

// Two rounds, direct and proxied in turn: the faster round of each gives the throughput (see
// proxy-cost.ts), the larger memory growth of the two is the one reported.
type Upload = Awaited<ReturnType<typeof benchReferenceUpload>>;
const uploads: { direct: Upload[]; proxied: Upload[] } = { direct: [], proxied: [] };
for (let round = 1; round <= 2; round += 1) {
  step(`upload, round ${round}: 1 GiB raw PDF direct to the reference service`);
  uploads.direct.push(await benchReferenceUpload());
  step(`upload, round ${round}: the same through print-conformance proxy`);
  uploads.proxied.push(await benchReferenceUpload(1024 * 1024 * 1024, true));
}
const fastest = (rounds: Upload[]) => rounds.reduce((a, b) => (b.throughputMiBs > a.throughputMiBs ? b : a));
const largestGrowth = (rounds: Upload[]) => Math.max(...rounds.map((r) => r.peakGrowthMiB));
const direct = { ...fastest(uploads.direct), peakGrowthMiB: largestGrowth(uploads.direct) };
const proxied = { ...fastest(uploads.proxied), peakGrowthMiB: largestGrowth(uploads.proxied) };
results.upload = {
  direct,
  proxied,
  roundsMiBs: {
    direct: uploads.direct.map((r) => r.throughputMiBs),
    proxied: uploads.proxied.map((r) => r.throughputMiBs),
  },
  throughputRatio: Number((proxied.throughputMiBs / direct.throughputMiBs).toFixed(2)),
};

step('validate: 100 000 recorded exchanges, three runs');
results.validate = await benchValidateThroughput();

step('suite: npx print-conformance against the embedded default');
results.suite = benchSuiteWallTime();

const validate = results.validate as { exchangesPerSecond: number };
const suite = results.suite as { bestSeconds: number };
results.targets = targetRows({
  ratios: proxyCost.ratios,
  uploadRatio: (results.upload as { throughputRatio: number }).throughputRatio,
  uploadGrowthMiB: proxied.peakGrowthMiB,
  validatePerSecond: validate.exchangesPerSecond,
  suiteSeconds: suite.bestSeconds,
});

const folder = join(import.meta.dirname, '..', 'reports');
mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);

console.log(`\nProxy cost (requests/s, latency ms; best of ${proxyCost.rounds} rounds, all rounds in roundsRps):`);
console.table(proxyCost.rows);
console.table(proxyCost.ratios);
console.log(
  '\nUpload of 1 GiB after a 64 MiB warm-up, faster of 2 rounds (peak memory, VmHWM, in MiB of the receiving process; growth: the larger of the rounds):',
);
console.table({ direct, proxied });
console.log(`proxy/direct throughput ratio: ${(results.upload as { throughputRatio: number }).throughputRatio}`);
console.log('\nValidate and suite:');
console.table({ validate: results.validate, suite: results.suite });
console.log('\nTargets:');
console.table(results.targets);
console.log(`\nwritten ${join(folder, 'bench.json')}`);
