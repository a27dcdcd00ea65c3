import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Dispatcher, ProxyAgent, request } from 'undici';
import { processCpuMs } from './process-memory.js';
import { BASE_BIN, BIN, startListening, stop } from './start-cli.js';

// CPU per request of the intercepting door at one offered rate, beside direct HTTPS: GET checkout
// through CONNECT and the proxy's TLS, 32 connections, the ways' rounds taken in turn. Each
// process is charged apart (the proxy, the service, this load generator), so a busy machine slows
// the rounds without changing what a request costs. With BENCH_BASE (start-cli.ts) the other
// build's proxy is measured beside this one's. BENCH_NEW_TUNNELS=1 opens a tunnel per request (a
// client without keep-alive); BENCH_RATE, BENCH_SECONDS, BENCH_ROUNDS as elsewhere;
// BENCH_PROFILE=folder writes this build's proxy's CPU profile there.

const CONNECTIONS = 32;
const RATE = Number(process.env.BENCH_RATE ?? 1500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NEW_TUNNELS = process.env.BENCH_NEW_TUNNELS === '1';

/** CONNECTIONS loops sending GETs, `rate` a second in all. */
async function load(url: string, dispatcher: Dispatcher, rate: number, seconds: number) {
  const start = performance.now();
  const until = start + seconds * 1000;
  const gapMs = (CONNECTIONS / rate) * 1000;
  let done = 0;
  let errors = 0;
  const loop = async (index: number) => {
    let next = start + (index * gapMs) / CONNECTIONS;
    while (performance.now() < until) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      next += gapMs;
      try {
        const answer = await request(url, {
          dispatcher,
          headers: { accept: 'application/json' },
          reset: NEW_TUNNELS,
        });
        await answer.body.dump();
        if (answer.statusCode === 200) done += 1;
        else errors += 1;
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, index) => loop(index)));
  return { done, errors };
}

/** A proxy of `bin` in front of `target`, started with `nodeOptions`. */
async function startProxy(bin: string, target: string, caDir: string, folder: string, nodeOptions: string[]) {
  const args = ['proxy', '--target', target, '--ca-dir', caDir, '--summary-interval', '0'];
  const record = ['--record', join(folder, `${bin === BIN ? 'this' : 'base'}.ndjson`)];
  const child = spawn(process.execPath, [...nodeOptions, bin, ...args, ...record], {
    stdio: ['ignore', 'pipe', 'ignore'],
    cwd: folder,
  });
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk;
    if (out.includes('\n')) break;
  }
  const url = /listening on (\S+)/.exec(out)?.[1];
  if (!url) throw new Error(`the proxy did not start: ${out}`);
  return { child, url };
}

export async function benchInterceptionCpu() {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-bench-tls-cpu-'));
  const caDir = join(folder, 'ca');
  const service = await startListening(['serve', '--tls', '--port', '0', '--ca-dir', caDir]);
  const proxies: ChildProcess[] = [];
  try {
    const ca = readFileSync(join(caDir, 'ca.pem'), 'utf8');
    const created = await request(`${service.url}orders`, {
      method: 'POST',
      dispatcher: new Agent({ connect: { ca } }),
    });
    const url = ((await created.body.json()) as { checkout: { setupUrl: string } }).checkout.setupUrl;
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    const ways: { way: string; dispatcher: () => Dispatcher; pid: number }[] = [
      {
        way: 'direct',
        dispatcher: () => new Agent({ connect: { ca }, connections: CONNECTIONS }),
        pid: service.child.pid as number,
      },
    ];
    for (const [way, bin] of [['this proxy', BIN], ...(BASE_BIN ? [['base proxy', BASE_BIN]] : [])] as const) {
      const proxy = await startProxy(bin, service.url, caDir, folder, bin === BIN ? profile : []);
      proxies.push(proxy.child);
      ways.push({
        way,
        dispatcher: () => new ProxyAgent({ uri: proxy.url, requestTls: { ca }, connections: CONNECTIONS }),
        pid: proxy.child.pid as number,
      });
    }
    for (const { dispatcher } of ways) {
      const warm = dispatcher();
      await load(url, warm, 100_000, 1);
      await warm.close();
    }
    const rounds: Record<string, unknown>[] = [];
    for (let round = 0; round < ROUNDS; round += 1)
      for (const { way, dispatcher, pid } of ways) {
        const agent = dispatcher();
        const [proxyBefore, serviceBefore, ownBefore] = [
          processCpuMs(pid),
          processCpuMs(service.child.pid as number),
          process.cpuUsage(),
        ];
        const { done, errors } = await load(url, agent, RATE, SECONDS);
        const own = process.cpuUsage(ownBefore);
        const perRequest = (ms: number) => Math.round((ms * 1000) / Math.max(1, done));
        rounds.push({
          round: round + 1,
          way,
          rps: Math.round(done / SECONDS),
          errors,
          proxyCpuUs: way === 'direct' ? undefined : perRequest(processCpuMs(pid) - proxyBefore),
          serviceCpuUs: perRequest(processCpuMs(service.child.pid as number) - serviceBefore),
          clientCpuUs: perRequest((own.user + own.system) / 1000),
          loadAverage: loadavg()[0]?.toFixed(1),
        });
        await agent.close();
      }
    return { rate: RATE, newTunnels: NEW_TUNNELS, rounds };
  } finally {
    for (const child of proxies) await stop(child);
    await stop(service.child);
    rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table((await benchInterceptionCpu()).rounds);
