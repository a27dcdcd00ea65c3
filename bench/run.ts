import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { benchConnectionLimit } from './connection-limit.js';
import { benchHttpsInterception } from './https-interception.js';
import { benchLearntOrders } from './learnt-orders.js';
import { benchLivePageBursts } from './live-page-burst.js';
import { benchLiveWindowMemory } from './live-window-memory.js';
import { MiB } from './process-memory.js';
import { benchProxyConnections } from './proxy-connections.js';
import { benchProxyCost } from './proxy-cost.js';
import { benchReferenceUpload, UPLOAD_SIZE, type UploadWay } from './reference-upload.js';
import { benchSoak } from './soak.js';
import { BASE_CHECKOUT } from './start-cli.js';
import { benchSuiteWallTime } from './suite-wall-time.js';
import { targetRows } from './targets.js';
import { benchValidateThroughput } from './validate-throughput.js';

// `npm run bench`: one run on loopback that writes reports/bench.json and prints the tables.
// Ratios, not absolute numbers, are the result: the load generator shares the machine.
// BENCH_BASE=/path/to/checkout measures another build beside this one where it is compared (proxy
// cost, the live-page burst, validate); BENCH_ONLY=cost,live,validate runs only those parts (of
// cost, upload, connections, validate, orders, https, live, limits, suite; and soak, run only when named).

const step = (what: string) => process.stderr.write(`${what}…\n`);
const results: Record<string, unknown> = {
  startedAt: new Date().toISOString(),
  node: process.version,
  ...(BASE_CHECKOUT ? { base: BASE_CHECKOUT } : {}),
};
const ONLY = process.env.BENCH_ONLY?.split(',').map((part) => part.trim());
const runs = (part: string) => !ONLY || ONLY.includes(part);
const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
results.loadAverageAtStart = loadAverage();

let proxyCost: Awaited<ReturnType<typeof benchProxyCost>> | undefined;
if (runs('cost')) {
  step('proxy cost: GET/POST checkout, JSON/XML, 32 connections, four ways (and the base build)');
  proxyCost = await benchProxyCost();
  results.proxyCost = proxyCost;
}

// Rounds that take the three ways in turn: the fastest round of each gives the throughput (see
// proxy-cost.ts), the larger memory growth of the rounds is the one reported.
const UPLOAD_ROUNDS = 3;
type Upload = Awaited<ReturnType<typeof benchReferenceUpload>>;
let uploaded: { upload: Record<UploadWay, Upload & { roundsMiBs: string }>; uploadVsBare: number } | undefined;
if (runs('upload')) {
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
  uploaded = { upload, uploadVsBare };
}

let connections: Awaited<ReturnType<typeof benchProxyConnections>> | undefined;
if (runs('connections')) {
  step('proxy memory: 1 000 connections of five kinds');
  connections = await benchProxyConnections();
  results.connections = connections;
}

let validate: Awaited<ReturnType<typeof benchValidateThroughput>> | undefined;
if (runs('validate')) {
  step(
    'validate: the suite recorded through the proxy, replicated to 100 000 exchanges, three runs; then 400 000, three runs',
  );
  validate = await benchValidateThroughput();
  results.validate = validate;
}

let learntOrders: ReturnType<typeof benchLearntOrders> | undefined;
if (runs('orders')) {
  step('order answers: 100 000 learnt, CPU per order of the last 10 000 over the first');
  learntOrders = benchLearntOrders();
  results.learntOrders = learntOrders;
}

let https: Awaited<ReturnType<typeof benchHttpsInterception>> | undefined;
if (runs('https')) {
  step(
    'HTTPS: GET checkout with keep-alive, 32 connections: direct, through the proxy as HTTPS_PROXY, through mitmdump',
  );
  https = await benchHttpsInterception();
  results.https = https;
}

let livePage: Awaited<ReturnType<typeof benchLivePageBursts>> | undefined;
if (runs('live')) {
  step('live page: 10 000 exchanges through the proxy with the page open in headless Chromium (and the base build)');
  livePage = await benchLivePageBursts();
  results.livePage = livePage;
}

if (runs('limits')) {
  step('connection limit: 300 tunnels, then 300 event streams, with --max-connections 40');
  results.connectionLimit = await benchConnectionLimit();
  step('live window: 200 checkout set-ups of 4 MiB JSON through the proxy');
  results.liveWindow = await benchLiveWindowMemory();
}

let suite: ReturnType<typeof benchSuiteWallTime> | undefined;
if (runs('suite')) {
  step('suite: npx print-conformance against the embedded default');
  suite = benchSuiteWallTime();
  results.suite = suite;
}
// The soak takes half an hour (SOAK_MINUTES): run only when asked for by name, BENCH_ONLY=soak.
let soak: Awaited<ReturnType<typeof benchSoak>> | undefined;
if (ONLY?.includes('soak')) {
  step(`soak: proxy in front of serve, ${process.env.SOAK_MINUTES ?? 30} minutes at a constant rate, recording`);
  soak = await benchSoak();
  results.soak = soak;
}
results.loadAverageAtEnd = loadAverage();

results.targets = targetRows({
  ratios: proxyCost?.ratios,
  uploadVsBare: uploaded?.uploadVsBare,
  uploadGrowthMiB: uploaded?.upload.proxy.peakGrowthMiB,
  connectionsPeakRssMiB: connections?.rssMiB.peak,
  validatePerSecond: validate?.exchangesPerSecond,
  validateLargePerSecond: validate?.large.exchangesPerSecond,
  validateMBPerSecond: validate?.MBPerSecond,
  validatePeakRssMiB: validate && Math.max(validate.peakRssMiB, validate.large.peakRssMiB),
  validateLinearity: validate?.large.cpuPerExchangeRatio,
  learntOrdersLinearity: learntOrders?.lastOverFirst,
  suiteSeconds: suite?.bestSeconds,
  httpsVsMitmdump: https?.vsMitmdump,
  httpsVsDirect: https?.vsDirect,
});
if (soak) (results.targets as unknown[]).push(...soak.targets);

const folder = join(import.meta.dirname, '..', 'reports');
mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);

console.log(`\nload average at start ${results.loadAverageAtStart}, at end ${results.loadAverageAtEnd}`);
if (proxyCost) {
  console.log(
    `\nProxy cost (requests/s, latency ms; best of ${proxyCost.rounds} rounds, all rounds in roundsRps; proxy CPU µs per request, least of the rounds):`,
  );
  console.table(proxyCost.rows);
  console.table(proxyCost.ratios);
  console.log('proxy RSS at start, MiB:', proxyCost.rssAtStartMiB);
  console.log('proxy idle CPU, ms a second:', proxyCost.idleCpuMsPerSecond);
  console.log('load average before each round:', proxyCost.loadAverages.join(', '));
}
if (uploaded) {
  console.log(
    `\nUpload of ${UPLOAD_SIZE / MiB} MiB after a 64 MiB warm-up, fastest of ${UPLOAD_ROUNDS} rounds (CPU: least of the rounds, of the forwarding process, or the service's direct; peak memory, VmHWM, in MiB; growth: the largest of the rounds):`,
  );
  console.table(uploaded.upload);
  console.log(`proxy ÷ http-proxy throughput: ${uploaded.uploadVsBare}`);
}
if (connections) {
  console.log('\n1 000 connections (RSS of the proxy, MiB):');
  console.table({ ...connections.mix, ...connections.rssMiB });
}
if (https) {
  console.log(
    `\nHTTPS GET checkout (requests/s, best of ${https.rounds} rounds; CPU µs per request of the way between, the service and the client), and the first answer through a new tunnel, ms:`,
  );
  console.table(https.rows);
  console.table({
    'proxy ÷ direct': https.vsDirect,
    'bare Node.js TLS relay ÷ direct (the floor of a Node.js interception)': https.bareRelayVsDirect,
    'proxy ÷ bare Node.js TLS relay': https.vsBareRelay,
  });
  console.table({
    'a host seen first (certificate made)': https.newHostFirstAnswerMs,
    'a host seen before (certificate cached)': https.knownHostFirstAnswerMs,
  });
}
if (livePage) {
  console.log('\nThe proxy through a burst with the live page open (RSS, MiB; "base": the base build):');
  console.table(livePage);
}
if (results.connectionLimit) {
  console.log('\n300 tunnels, then 300 event streams, with --max-connections 40 (statuses answered, descriptors):');
  console.log(results.connectionLimit);
  console.log('\nThe proxy after 200 set-ups of 4 MiB (RSS, MiB):');
  console.table(results.liveWindow);
}
if (validate) {
  console.log('\nValidate (best of the runs; "base": the base build, its runs taken in turn with this one\'s):');
  const { large, base, loadAverages, ...validateRow } = validate;
  const rows: Record<string, unknown> = {
    validate: validateRow,
    [`validate ×${large.exchanges / validate.exchanges}`]: large,
  };
  if (base) {
    const { large: baseLarge, ...baseRow } = base;
    rows['base validate'] = baseRow;
    rows[`base validate ×${baseLarge.exchanges / base.exchanges}`] = baseLarge;
  }
  console.table(rows);
  console.log('load average before, between and after:', loadAverages.join(', '));
}
if (suite || learntOrders) console.table({ suite, 'order answers learnt': learntOrders });
console.log('\nTargets:');
if (soak) {
  const { targets: _, ...measured } = soak;
  console.log('\nSoak:', JSON.stringify(measured, null, 2));
}
console.table(results.targets);
console.log(`\nwritten ${join(folder, 'bench.json')}`);
