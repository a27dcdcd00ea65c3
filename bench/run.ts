import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchReferenceUpload } from './reference-upload.js';
import { benchSuiteWallTime } from './suite-wall-time.js';

// `npm run bench`: measures on loopback and writes reports/bench.json plus a readable table.

const results: Record<string, unknown> = { startedAt: new Date().toISOString(), node: process.version };

process.stderr.write('reference service: 1 GiB raw PDF upload…\n');
results.referenceUpload = await benchReferenceUpload();

process.stderr.write('proxy: the same upload through print-conformance proxy…\n');
results.proxyUpload = await benchReferenceUpload(1024 * 1024 * 1024, true);
const direct = results.referenceUpload as { throughputMiBs: number };
const proxied = results.proxyUpload as { throughputMiBs: number };
results.proxyUploadThroughputRatio = { ratio: Number((proxied.throughputMiBs / direct.throughputMiBs).toFixed(2)) };

process.stderr.write('suite: npx print-conformance against the embedded default…\n');
results.suiteWallTime = benchSuiteWallTime();

const folder = join(import.meta.dirname, '..', 'reports');
mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);
console.table(
  Object.entries(results)
    .filter(([, v]) => typeof v === 'object')
    .map(([name, v]) => ({ name, ...(v as object) })),
);
process.stdout.write(`written ${join(folder, 'bench.json')}\n`);
