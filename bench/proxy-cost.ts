import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { processCpuMs } from './process-memory.js';
import { startListening, stop } from './start-cli.js';

// Requests per second and latency of GET and POST checkout, in JSON and XML, at 32 connections:
// direct, through a bare http-proxy passthrough, through print-conformance proxy (validating and
// recording), and through Stoplight Prism's proxy given the OpenAPI document of the interface.

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/**
 * Each scenario is measured in rounds that take the ways in turn, and each way's best round
 * counts: other load on the machine only ever slows a round down, so the fastest is the least
 * disturbed, and a burst of it no longer falls on one way alone.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
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

function load(url: string, scenario: (typeof ALL_SCENARIOS)[number], duration = SECONDS) {
  return new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration,
        method: scenario.method,
        headers: scenario.headers,
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
  const ways: { way: string; base: string; pid?: number }[] = [{ way: 'direct', base: service.url }];
  try {
    const bare = await startProcess(
      process.execPath,
      [join(import.meta.dirname, 'bare-http-proxy.mjs'), service.url],
      /listening on (\S+)/,
    );
    children.push(bare.child);
    ways.push({ way: 'http-proxy passthrough', base: bare.url, pid: bare.child.pid });
    const ours = await startListening([
      'proxy',
      '--target',
      service.url,
      '--record',
      join(folder, 'traffic.ndjson'),
      '--summary-interval',
      '0',
    ]);
    children.push(ours.child);
    ways.push({ way: 'print-conformance proxy', base: ours.url, pid: ours.child.pid });
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

    const rows: Record<string, unknown>[] = [];
    for (const scenario of SCENARIOS) {
      const rounds = new Map<string, Record<string, unknown>[]>(ways.map(({ way }) => [way, []]));
      for (const { base } of ways) await load(`${base}${checkoutPath}`, scenario, WARM_UP_SECONDS);
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const { way, base, pid } of ways) {
          const cpuBefore = pid ? processCpuMs(pid) : 0;
          const result = await load(`${base}${checkoutPath}`, scenario);
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
        rows.push({ ...best, roundsRps: measured.map((m) => m.rps).join(' / ') });
      }
    }
    const rpsOf = (scenario: string, way: string) =>
      (rows.find((r) => r.scenario === scenario && r.way === way)?.rps as number) ?? Number.NaN;
    const ratios = SCENARIOS.map(({ name }) => ({
      scenario: name,
      vsHttpProxy: Number((rpsOf(name, 'print-conformance proxy') / rpsOf(name, 'http-proxy passthrough')).toFixed(2)),
      vsPrism: Number((rpsOf(name, 'print-conformance proxy') / rpsOf(name, 'prism proxy')).toFixed(2)),
      vsDirect: Number((rpsOf(name, 'print-conformance proxy') / rpsOf(name, 'direct')).toFixed(2)),
    }));
    return { connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, rows, ratios };
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
