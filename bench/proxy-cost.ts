import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { MiB, processCpuMs, processMemory } from './process-memory.js';
import { BASE_BIN, PINNED, startListening, stop } from './start-cli.js';

// Requests per second and latency of GET and POST checkout, in JSON and XML, at 32 connections:
// direct, through a bare http-proxy passthrough, through print-conformance proxy (validating and
// recording), and through Stoplight Prism's proxy given the OpenAPI document of the interface.
// With BENCH_BASE (see start-cli.ts), the proxy of that other build too, in the same rounds.

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/**
 * Each scenario is measured in rounds that take the ways in turn, and each way's best round
 * counts: other load on the machine only ever slows a round down, so the fastest is the least
 * disturbed, and a burst of it no longer falls on one way alone.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Seconds each proxy is left without traffic before the rounds, its idle CPU measured (BENCH_IDLE_SECONDS). */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
/**
 * BENCH_RATE=3000: every way is sent this many requests a second (autocannon's overallRate)
 * rather than as many as it takes, so that CPU per request is compared at one load, where
 * batching of reads and writes is the same for all; unset: as many as each takes.
 */
const RATE = Number(process.env.BENCH_RATE ?? 0) || undefined;
/** Each way is loaded this long, unmeasured, before each measurement: every proxy runs compiled code. */
const WARM_UP_SECONDS = 1;

const CHECKOUT_JSON = JSON.stringify({
  returnUrl: 'https://shop.example.test/return?order=1',
  billing: {
    address: { name: 'Print API', line1: 'Osloweg 75', postCode: '9700 GE', city: 'Groningen', country: 'NL' },
  },
});
const CHECKOUT_XML = `<?xml version="1.0"?>\n<Checkout xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n  <ReturnUrl>https://shop.example.test/return?order=1</ReturnUrl>\n  <Billing>\n    <Address>\n      <Name>Print API</Name>\n      <Line1>Osloweg 75</Line1>\n      <PostCode>9700 GE</PostCode>\n      <City>Groningen</City>\n      <Country>NL</Country>\n    </Address>\n  </Billing>\n</Checkout>`;

const ALL_SCENARIOS = [
  { name: 'GET json', method: 'GET', headers: { accept: 'application/json' } },
  { name: 'GET xml', method: 'GET', headers: { accept: 'application/xml' } },
  {
    name: 'POST json',
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: CHECKOUT_JSON,
  },
  {
    name: 'POST xml',
    method: 'POST',
    headers: { accept: 'application/xml', 'content-type': 'application/xml' },
    body: CHECKOUT_XML,
  },
] as const;
const THIS_PROXY = 'print-conformance proxy';
/** This proxy with --clients-by oauth (BENCH_WAYS=proxy,proxy-clients): every way's requests then carry a bearer token obtained through it. */
const CLIENTS_PROXY = 'print-conformance proxy-clients';
const BASE_PROXY = 'print-conformance proxy (base)';
/** The same build with --admin-port, scraped as Prometheus would: what counting costs an exchange. */
const ADMIN_PROXY = 'print-conformance proxy (admin port)';
/** How often the admin way is scraped while it is loaded (Prometheus' default is every 15 s). */
const SCRAPE_MS = Number(process.env.BENCH_SCRAPE_MS ?? 5000);
/**
 * BENCH_WAYS="proxy,base": only the ways whose names hold one of these words (a run by hand that
 * compares two builds); all but the admin way by default. BENCH_WAYS="proxy,proxy-admin": this
 * build without and with --admin-port, side by side.
 */
const WAYS = process.env.BENCH_WAYS?.split(',').map((word) => word.trim());
const wanted = (way: string) =>
  way === ADMIN_PROXY
    ? (WAYS?.includes('proxy-admin') ?? false)
    : !WAYS || WAYS.some((word) => (word === 'proxy' ? way === THIS_PROXY : way.includes(word)));

/** BENCH_SCENARIOS="GET json,GET xml": only those (a run by hand); all by default. */
const SCENARIOS = ALL_SCENARIOS.filter(
  ({ name }) => !process.env.BENCH_SCENARIOS || process.env.BENCH_SCENARIOS.split(',').includes(name),
);

async function startProcess(
  command: string,
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const deadline = Date.now() + 60_000;
  while (!ready.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${command} did not start: ${out.slice(-500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url: (ready.exec(out)?.[1] ?? '').replace(/\/?$/, '/') };
}

function load(
  url: string,
  scenario: (typeof ALL_SCENARIOS)[number],
  duration = SECONDS,
  extraHeaders: Record<string, string> = {},
) {
  return new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        overallRate: RATE,
        duration,
        method: scenario.method,
        headers: { ...scenario.headers, ...extraHeaders },
        body: 'body' in scenario ? scenario.body : undefined,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

export async function benchProxyCost() {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-bench-'));
  const service = await startListening(['serve', '--port', '0']);
  const order = (await (await request(`${service.url}orders`, { method: 'POST' })).body.json()) as {
    checkout: { setupUrl: string };
  };
  const checkoutPath = new URL(order.checkout.setupUrl).pathname.replace(/^\/v2\//, '');
  const openapi = join(folder, 'openapi.json');
  const { openApiDocument } = await import('../src/contract/openapi.js');
  writeFileSync(openapi, JSON.stringify(openApiDocument()));

  const children: ChildProcess[] = [];
  const ways: { way: string; base: string; pid?: number; headers?: Record<string, string> }[] = [];
  /** Resident memory of each proxy once it listens, before any request, MiB. */
  const rssAtStartMiB: Record<string, number> = {};
  try {
    if (wanted('direct')) ways.push({ way: 'direct', base: service.url });
    if (wanted('http-proxy passthrough')) {
      const bare = await startProcess(
        process.execPath,
        [join(import.meta.dirname, 'bare-http-proxy.mjs'), service.url],
        /listening on (\S+)/,
      );
      children.push(bare.child);
      ways.push({ way: 'http-proxy passthrough', base: bare.url, pid: bare.child.pid });
    }
    const proxies = [
      { way: THIS_PROXY, bin: undefined, extra: [] as string[] },
      { way: ADMIN_PROXY, bin: undefined, extra: ['--admin-port', '0'] },
      ...(BASE_BIN ? [{ way: BASE_PROXY, bin: BASE_BIN, extra: [] as string[] }] : []),
      ...(WAYS?.includes('proxy-clients')
        ? [{ way: CLIENTS_PROXY, bin: undefined, extra: ['--clients-by', 'oauth'] }]
        : []),
    ].filter(({ way }) => wanted(way));
    for (const { way, bin, extra } of proxies) {
      const started = await startListening(
        [
          'proxy',
          '--target',
          service.url,
          '--record',
          join(folder, `${ways.length}.ndjson`),
          '--summary-interval',
          '0',
          ...extra,
        ],
        false,
        bin,
        true,
      );
      children.push(started.child);
      const admin = /^admin on (\S+)/m.exec(started.printed)?.[1];
      if (admin) {
        // Scraped all along, as a Prometheus server would: what a scrape costs is part of the way's.
        // Once at once, as a server does on finding a target: the first scrape's compiling is then
        // behind the idle measure below, not in it.
        const scrape = () =>
          request(`${admin}metrics`)
            .then((answer) => answer.body.dump())
            .catch(() => {});
        await scrape();
        const scraping = setInterval(scrape, SCRAPE_MS);
        started.child.once('exit', () => clearInterval(scraping));
      }
      ways.push({ way, base: started.url, pid: started.child.pid });
      // Once it has settled after its listening line.
      await new Promise((resolve) => setTimeout(resolve, 500));
      rssAtStartMiB[way] = Math.round(processMemory(started.child.pid as number).rss / MiB);
    }
    if (wanted('prism'))
      try {
        const prismBin = join(import.meta.dirname, 'node_modules', '.bin', 'prism');
        const prism = await startProcess(
          prismBin,
          ['proxy', openapi, service.url.replace(/\/$/, ''), '--port', '0', '--host', '127.0.0.1', '--errors', 'false'],
          /Prism is listening on (http:\/\/\S+)/,
        );
        children.push(prism.child);
        ways.push({ way: 'prism proxy', base: prism.url, pid: prism.child.pid });
      } catch (error) {
        process.stderr.write(`prism could not be started: ${(error as Error).message}\n`);
      }

    // With the clients way, every way's requests carry a bearer token it handed out: the same headers for all.
    if (ways.some(({ way }) => way === CLIENTS_PROXY))
      for (const way of ways) {
        const answer = await request(`${way.base}oauth`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&client_id=bench-shop&client_secret=bench-secret',
        });
        const { access_token } = (await answer.body.json()) as { access_token: string };
        way.headers = { authorization: `Bearer ${access_token}` };
      }
    // What each proxy costs with no traffic at all: timers of its own (an event-loop sampler, say)
    // wake it however quiet it is, and at a steady rate that cost is shared by every request.
    const idleCpuMsPerSecond: Record<string, number> = {};
    const idle = ways.filter((way) => way.pid !== undefined && proxies.some((proxy) => proxy.way === way.way));
    const idleFrom = new Map(idle.map((way) => [way.way, processCpuMs(way.pid as number)]));
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    for (const way of idle)
      idleCpuMsPerSecond[way.way] = Number(
        ((processCpuMs(way.pid as number) - (idleFrom.get(way.way) as number)) / IDLE_SECONDS).toFixed(1),
      );
    const rows: Record<string, unknown>[] = [];
    const loadAverages: string[] = [];
    for (const scenario of SCENARIOS) {
      const rounds = new Map<string, Record<string, unknown>[]>(ways.map(({ way }) => [way, []]));
      for (const { base, headers } of ways) await load(`${base}${checkoutPath}`, scenario, WARM_UP_SECONDS, headers);
      for (let round = 0; round < ROUNDS; round += 1) {
        loadAverages.push(
          loadavg()
            .map((n) => n.toFixed(2))
            .join(' '),
        );
        // Every other round the other way round: neither way always follows the same one.
        for (const { way, base, pid, headers } of round % 2 === 0 ? ways : [...ways].reverse()) {
          const cpuBefore = pid ? processCpuMs(pid) : 0;
          const result = await load(`${base}${checkoutPath}`, scenario, SECONDS, headers);
          // CPU per request of the proxy process: steadier than req/s when the load generator shares the cores.
          const cpuUsPerRequest = pid
            ? Math.round(((processCpuMs(pid) - cpuBefore) * 1000) / Math.max(1, result.requests.total))
            : undefined;
          rounds.get(way)?.push({
            scenario: scenario.name,
            way,
            rps: Math.round(result.requests.average),
            p50ms: result.latency.p50,
            p99ms: result.latency.p99,
            non2xx: result.non2xx,
            errors: result.errors,
            proxyCpuUsPerRequest: cpuUsPerRequest,
          });
          process.stderr.write(
            `  ${scenario.name.padEnd(9)} ${way.padEnd(24)} round ${round + 1}: ${Math.round(result.requests.average)} req/s\n`,
          );
        }
      }
      for (const [, measured] of rounds) {
        const best = measured.reduce((a, b) => ((b.rps as number) > (a.rps as number) ? b : a));
        const cpu = measured.map((m) => m.proxyCpuUsPerRequest as number | undefined);
        rows.push({
          ...best,
          // CPU per request: the least of the rounds (other load only ever adds to it), and every round's.
          proxyCpuUsPerRequest: cpu[0] === undefined ? undefined : Math.min(...(cpu as number[])),
          roundsRps: measured.map((m) => m.rps).join(' / '),
          roundsCpuUs: cpu[0] === undefined ? undefined : cpu.join(' / '),
        });
      }
    }
    const rpsOf = (scenario: string, way: string) =>
      (rows.find((r) => r.scenario === scenario && r.way === way)?.rps as number) ?? Number.NaN;
    const cpuOf = (scenario: string, way: string) =>
      (rows.find((r) => r.scenario === scenario && r.way === way)?.proxyCpuUsPerRequest as number) ?? Number.NaN;
    const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
    const ratios = SCENARIOS.map(({ name }) => ({
      scenario: name,
      vsHttpProxy: ratio(rpsOf(name, THIS_PROXY), rpsOf(name, 'http-proxy passthrough')),
      vsPrism: ratio(rpsOf(name, THIS_PROXY), rpsOf(name, 'prism proxy')),
      vsDirect: ratio(rpsOf(name, THIS_PROXY), rpsOf(name, 'direct')),
      // With --admin-port and metrics over without: CPU per request (≤ 1.03 is within 3 %).
      ...(wanted(ADMIN_PROXY) && wanted(THIS_PROXY)
        ? { cpuAdminVsPlain: Number((cpuOf(name, ADMIN_PROXY) / cpuOf(name, THIS_PROXY)).toFixed(3)) }
        : {}),
      ...(BASE_BIN
        ? {
            // This build over the base one: requests per second (≥ 1 is as fast), CPU per request (≤ 1 is as cheap).
            rpsVsBase: ratio(rpsOf(name, THIS_PROXY), rpsOf(name, BASE_PROXY)),
            cpuVsBase: ratio(cpuOf(name, THIS_PROXY), cpuOf(name, BASE_PROXY)),
          }
        : {}),
      // --clients-by oauth over none: CPU per request (≤ 1.03 is within 3%).
      ...(ways.some(({ way }) => way === CLIENTS_PROXY)
        ? { cpuClientsVsProxy: ratio(cpuOf(name, CLIENTS_PROXY), cpuOf(name, THIS_PROXY)) }
        : {}),
    }));
    return {
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      rate: RATE,
      pinned: PINNED,
      rows,
      ratios,
      rssAtStartMiB,
      idleCpuMsPerSecond,
      loadAverages,
    };
  } finally {
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 5000))]);
      }
    }
    await stop(service.child);
    rmSync(folder, { recursive: true, force: true });
  }
}

// Alone: `npx tsx bench/proxy-cost.ts` (BENCH_BASE, BENCH_WAYS (proxy-clients: --clients-by oauth; proxy-admin: --admin-port), BENCH_SCENARIOS, BENCH_SECONDS, BENCH_ROUNDS, BENCH_RATE, BENCH_PIN, BENCH_SCRAPE_MS, BENCH_IDLE_SECONDS).
if (import.meta.url === `file://${process.argv[1]}`) {
  const measured = await benchProxyCost();
  console.table(measured.rows);
  console.table(measured.ratios);
  console.log(
    'proxy RSS at start, MiB:',
    measured.rssAtStartMiB,
    '\nidle CPU, ms a second:',
    measured.idleCpuMsPerSecond,
    `\n${measured.pinned ? 'proxies pinned to a core of their own (BENCH_PIN)' : 'proxies not pinned'}; load averages per round:`,
    measured.loadAverages,
  );
}
