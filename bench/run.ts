import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchProxyCost } from './proxy-cost.js';
import { benchReferenceUpload } from './reference-upload.js';
import { benchSuiteWallTime } from './suite-wall-time.js';
import { benchValidateThroughput } from './validate-throughput.js';

// `npm run bench`: one run on loopback that writes reports/bench.json and prints the tables.
// Ratios, not absolute numbers, are the result: the load generator shares the machine.

const step = (what: string) => process.stderr.write(`${what}…\n`);
const results: Record<string, unknown> = { startedAt: new Date().toISOString(), node: process.version };

step('proxy cost: GET/POST checkout, JSON/XML, 32 connections, four ways');
const proxyCost = await benchProxyCost();
results.proxyCost = proxyCost;

step('upload: 1 GiB raw PDF direct to the reference service');
const direct = await benchReferenceUpload();
step('upload: the same through print-conformance proxy');
const proxied = await benchReferenceUpload(1024 * 1024 * 1024, true);
results.upload = {
  direct,
  proxied,
  throughputRatio: Number((proxied.throughputMiBs / direct.throughputMiBs).toFixed(2)),
};

step('validate: 100 000 recorded exchanges');
results.validate = await benchValidateThroughput();

step('suite: npx print-conformance against the embedded default');
results.suite = benchSuiteWallTime();

const folder = join(import.meta.dirname, '..', 'reports');
mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);

console.log('\nProxy cost (requests/s, latency ms):');
console.table(proxyCost.rows);
console.table(proxyCost.ratios);
console.log('\nUpload of 1 GiB after a 64 MiB warm-up (peak memory, VmHWM, in MiB of the receiving process):');
console.table({ direct, proxied });
console.log(`proxy/direct throughput ratio: ${(results.upload as { throughputRatio: number }).throughputRatio}`);
console.log('\nValidate and suite:');
console.table({ validate: results.validate, suite: results.suite });
console.log(`\nwritten ${join(folder, 'bench.json')}`);
