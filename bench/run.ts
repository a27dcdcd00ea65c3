import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchConnectionLimit } from './connection-limit.js';
import { benchHttpsInterception } from './https-interception.js';
import { benchLearntOrders } from './learnt-orders.js';
import { benchLivePageBurst } from './live-page-burst.js';
import { benchLiveWindowMemory } from './live-window-memory.js';
import { MiB } from './process-memory.js';
import { benchProxyConnections } from './proxy-connections.js';
import { benchProxyCost } from './proxy-cost.js';
import { benchReferenceUpload, UPLOAD_SIZE, type UploadWay } from './reference-upload.js';
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

// Rounds that take the three ways in turn: the fastest round of each gives the throughput (see
// proxy-cost.ts), the larger memory growth of the rounds is the one reported.
const UPLOAD_ROUNDS = 3;
type Upload = Awaited<ReturnType<typeof benchReferenceUpload>>;
const ways: UploadWay[] = ['direct', 'http-proxy', 'proxy'];
const uploads = new Map<UploadWay, Upload[]>(ways.map((way) => [way, []]));
for (let round = 1; round <= UPLOAD_ROUNDS; round += 1) {
  for (const way of ways) {
    step(`upload, round ${round}: ${UPLOAD_SIZE / MiB} MiB raw PDF to the reference service, ${way}`);
    uploads.get(way)?.push(await benchReferenceUpload(undefined, way));
  }
}
const fastest = (rounds: Upload[]) => rounds.reduce((a, b) => (b.throughputMiBs > a.throughputMiBs ? b : a));
const upload = Object.fromEntries(
  ways.map((way) => {
    const rounds = uploads.get(way) ?? [];
    return [
      way,
      {
        ...fastest(rounds),
        cpuMsPerMiB: Math.min(...rounds.map((r) => r.cpuMsPerMiB)),
        peakGrowthMiB: Math.max(...rounds.map((r) => r.peakGrowthMiB)),
        roundsMiBs: rounds.map((r) => r.throughputMiBs).join(' / '),
      },
    ];
  }),
) as Record<UploadWay, Upload & { roundsMiBs: string }>;
const uploadVsBare = Number((upload.proxy.throughputMiBs / upload['http-proxy'].throughputMiBs).toFixed(2));
results.upload = { ...upload, proxyVsBare: uploadVsBare };

step('proxy memory: 1 000 connections of five kinds');
const connections = await benchProxyConnections();
results.connections = connections;

step('validate: the suite recorded through the proxy, replicated to 100 000 exchanges, three runs; then 400 000');
const validate = await benchValidateThroughput();
results.validate = validate;

step('order answers: 100 000 learnt, CPU per order of the last 10 000 over the first');
const learntOrders = benchLearntOrders();
results.learntOrders = learntOrders;

step('HTTPS: GET checkout with keep-alive, 32 connections: direct, through the proxy as HTTPS_PROXY, through mitmdump');
const https = await benchHttpsInterception();
results.https = https;

step('live page: 10 000 exchanges through the proxy with the page open in headless Chromium');
const livePage = await benchLivePageBurst();
results.livePage = livePage;

step('connection limit: 300 tunnels, then 300 event streams, with --max-connections 40');
results.connectionLimit = await benchConnectionLimit();

step('live window: 200 checkout set-ups of 4 MiB JSON through the proxy');
results.liveWindow = await benchLiveWindowMemory();

step('suite: npx print-conformance against the embedded default');
const suite = benchSuiteWallTime();
results.suite = suite;

results.targets = targetRows({
  ratios: proxyCost.ratios,
  uploadVsBare,
  uploadGrowthMiB: upload.proxy.peakGrowthMiB,
  connectionsPeakRssMiB: connections.rssMiB.peak,
  validatePerSecond: validate.exchangesPerSecond,
  validateMBPerSecond: validate.MBPerSecond,
  validatePeakRssMiB: Math.max(validate.peakRssMiB, validate.large.peakRssMiB),
  validateLinearity: validate.large.cpuPerExchangeRatio,
  learntOrdersLinearity: learntOrders.lastOverFirst,
  suiteSeconds: suite.bestSeconds,
  httpsVsMitmdump: https.vsMitmdump,
  httpsVsDirect: https.vsDirect,
});

const folder = join(import.meta.dirname, '..', 'reports');
mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);

console.log(`\nProxy cost (requests/s, latency ms; best of ${proxyCost.rounds} rounds, all rounds in roundsRps):`);
console.table(proxyCost.rows);
console.table(proxyCost.ratios);
console.log(
  `\nUpload of ${UPLOAD_SIZE / MiB} MiB after a 64 MiB warm-up, fastest of ${UPLOAD_ROUNDS} rounds (CPU: least of the rounds, of the forwarding process, or the service's direct; peak memory, VmHWM, in MiB; growth: the largest of the rounds):`,
);
console.table(upload);
console.log(`proxy ÷ http-proxy throughput: ${uploadVsBare}`);
console.log('\n1 000 connections (RSS of the proxy, MiB):');
console.table({ ...connections.mix, ...connections.rssMiB });
console.log(
  `\nHTTPS GET checkout (requests/s, best of ${https.rounds} rounds; proxy CPU µs per request), and the first answer through a new tunnel, ms:`,
);
console.table(https.rows);
console.table({
  'a host seen first (certificate made)': https.newHostFirstAnswerMs,
  'a host seen before (certificate cached)': https.knownHostFirstAnswerMs,
});
console.log('\nThe proxy through a burst with the live page open (RSS, MiB):');
console.table(livePage);
console.log('\n300 tunnels, then 300 event streams, with --max-connections 40 (statuses answered, descriptors):');
console.log(results.connectionLimit);
console.log('\nThe proxy after 200 set-ups of 4 MiB (RSS, MiB):');
console.table(results.liveWindow);
console.log('\nValidate and suite:');
const { large, ...validateRow } = validate;
console.table({ validate: validateRow, [`validate ×${large.exchanges / validate.exchanges}`]: large });
console.table({ suite, 'order answers learnt': learntOrders });
console.log('\nTargets:');
console.table(results.targets);
console.log(`\nwritten ${join(folder, 'bench.json')}`);
