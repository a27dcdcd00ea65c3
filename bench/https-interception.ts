import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Dispatcher, ProxyAgent, request } from 'undici';
import { processCpuMs } from './process-memory.js';
import { startListening, stop } from './start-cli.js';

// GET checkout over HTTPS with keep-alive, 32 connections: straight to `serve --tls`, through
// print-conformance proxy as a client's HTTPS_PROXY (CONNECT, TLS terminated with a certificate of
// its local CA, the exchange judged and recorded, TLS again to the service), and through mitmproxy's
// mitmdump doing the same interception (where Debian's mitmproxy is installed). Then the time a
// client waits for the first answer through a host's first tunnel (its certificate made) and
// through later ones (the certificate cached). Every way has the same client (undici in this
// process), the same connections kept alive, the rounds taken in turn; the load generator, the
// service and the proxy share the machine's cores, so each round says the load average and what
// the client itself spent per request (the same for every way when the comparison is fair). A bare
// Node.js relay (bare-tls-relay.mjs: TLS ended and made again, the bytes passed on unread) is the
// floor of any interception built on Node.js's TLS on the same machine, beside which the proxy's own
// cost shows; and the service's CPU per request says how much of the cores the service itself took.

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NEW_HOSTS = 10;

interface Way {
  way: string;
  dispatcher: () => Dispatcher;
  pid?: number;
}

/** CONNECTIONS loops, each sending GETs one after another on its own kept-alive connection. */
async function load(url: string, dispatcher: Dispatcher, seconds: number): Promise<{ rps: number; errors: number }> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  let errors = 0;
  const loop = async () => {
    while (performance.now() < until) {
      try {
        const answer = await request(url, { dispatcher, headers: { accept: 'application/json' } });
        await answer.body.dump();
        if (answer.statusCode === 200) done += 1;
        else errors += 1;
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  return { rps: Math.round(done / seconds), errors };
}

async function startMitmdump(
  folder: string,
  caFile: string,
): Promise<{ child: ChildProcess; url: string } | undefined> {
  try {
    execFileSync('sh', ['-c', 'command -v mitmdump'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(
    'mitmdump',
    [
      '--listen-host',
      '127.0.0.1',
      '--listen-port',
      String(port),
      '--set',
      `confdir=${join(folder, 'mitmproxy')}`,
      '--set',
      `ssl_verify_upstream_trusted_ca=${caFile}`,
      '--set',
      'http2=false',
      '-q',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const deadline = Date.now() + 30_000;
  const cert = join(folder, 'mitmproxy', 'mitmproxy-ca-cert.pem');
  // Listening once its CA exists and a connection is taken.
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return undefined;
    if (existsSync(cert)) {
      try {
        await request(`http://127.0.0.1:${port}/`).then((answer) => answer.body.dump());
        return { child, url: `http://127.0.0.1:${port}` };
      } catch {
        // Not listening yet.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  return undefined;
}

/** Milliseconds from a new tunnel's start to its first answer, through `proxy`, for `origin`. */
async function firstAnswerMs(proxy: string, origin: string, ca: string): Promise<number> {
  const agent = new ProxyAgent({ uri: proxy, requestTls: { ca } });
  const started = performance.now();
  const answer = await request(`${origin}/v2/orders/none`, { dispatcher: agent });
  await answer.body.dump();
  const ms = performance.now() - started;
  await agent.close();
  return ms;
}

export async function benchHttpsInterception() {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-bench-tls-'));
  const caDir = join(folder, 'ca');
  const service = await startListening(['serve', '--tls', '--port', '0', '--ca-dir', caDir]);
  const children: ChildProcess[] = [];
  try {
    const ca = readFileSync(join(caDir, 'ca.pem'), 'utf8');
    const created = await request(`${service.url}orders`, {
      method: 'POST',
      dispatcher: new Agent({ connect: { ca } }),
    });
    const order = (await created.body.json()) as { checkout: { setupUrl: string } };
    const checkoutUrl = order.checkout.setupUrl;
    const newHosts = Array.from({ length: NEW_HOSTS }, (_, index) => `host${index + 1}.bench.test`);
    const proxy = await startListening(
      [
        'proxy',
        '--target',
        service.url,
        '--ca-dir',
        caDir,
        '--record',
        join(folder, 'traffic.ndjson'),
        '--summary-interval',
        '0',
        ...newHosts.flatMap((host) => ['--intercept', `${host}:443`]),
      ],
      true,
    );
    children.push(proxy.child);
    const relay = await startListening([service.url, caDir], true, join(import.meta.dirname, 'bare-tls-relay.mjs'));
    children.push(relay.child);
    const ways: Way[] = [
      { way: 'direct', dispatcher: () => new Agent({ connect: { ca }, connections: CONNECTIONS }) },
      {
        way: 'print-conformance proxy',
        dispatcher: () => new ProxyAgent({ uri: proxy.url, requestTls: { ca }, connections: CONNECTIONS }),
        pid: proxy.child.pid,
      },
      {
        way: 'bare Node.js TLS relay',
        dispatcher: () => new ProxyAgent({ uri: relay.url, requestTls: { ca }, connections: CONNECTIONS }),
        pid: relay.child.pid,
      },
    ];
    const mitm = await startMitmdump(folder, join(caDir, 'ca.pem'));
    if (mitm) {
      children.push(mitm.child);
      const mitmCa = readFileSync(join(folder, 'mitmproxy', 'mitmproxy-ca-cert.pem'), 'utf8');
      ways.push({
        way: 'mitmdump',
        dispatcher: () => new ProxyAgent({ uri: mitm.url, requestTls: { ca: mitmCa }, connections: CONNECTIONS }),
        pid: mitm.child.pid,
      });
    } else process.stderr.write('  mitmdump is not installed (Debian: mitmproxy): measured without it\n');

    const rounds = new Map<
      string,
      {
        rps: number;
        errors: number;
        cpuUsPerRequest?: number;
        serviceCpuUs: number;
        clientCpuUs: number;
        loadAverage: number;
      }[]
    >();
    for (const { dispatcher } of ways) {
      const warm = dispatcher();
      await load(checkoutUrl, warm, 1);
      await warm.close();
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const { way, dispatcher, pid } of ways) {
        const agent = dispatcher();
        const cpuBefore = pid ? processCpuMs(pid) : 0;
        const serviceBefore = processCpuMs(service.child.pid as number);
        const clientBefore = process.cpuUsage();
        const measured = await load(checkoutUrl, agent, SECONDS);
        const requests = Math.max(1, measured.rps * SECONDS);
        const client = process.cpuUsage(clientBefore);
        const clientCpuUs = Math.round((client.user + client.system) / requests);
        const cpuUsPerRequest = pid ? Math.round(((processCpuMs(pid) - cpuBefore) * 1000) / requests) : undefined;
        const serviceCpuUs = Math.round(
          ((processCpuMs(service.child.pid as number) - serviceBefore) * 1000) / requests,
        );
        await agent.close();
        const loadAverage = Number(loadavg()[0]?.toFixed(1));
        const list = rounds.get(way) ?? [];
        list.push({ ...measured, cpuUsPerRequest, serviceCpuUs, clientCpuUs, loadAverage });
        rounds.set(way, list);
        process.stderr.write(
          `  GET checkout https  ${way.padEnd(24)} round ${round + 1}: ${measured.rps} req/s (client ${clientCpuUs}, service ${serviceCpuUs}${cpuUsPerRequest === undefined ? '' : `, between ${cpuUsPerRequest}`} us/request, load average ${loadAverage})\n`,
        );
      }
    }
    const rows = [...rounds].map(([way, measured]) => {
      const best = measured.reduce((a, b) => (b.rps > a.rps ? b : a));
      return { way, ...best, roundsRps: measured.map((m) => m.rps).join(' / ') };
    });
    const rpsOf = (way: string) => rows.find((row) => row.way === way)?.rps ?? Number.NaN;
    const vsMitmdump = Number((rpsOf('print-conformance proxy') / rpsOf('mitmdump')).toFixed(2));
    const vsDirect = Number((rpsOf('print-conformance proxy') / rpsOf('direct')).toFixed(2));
    const bareRelayVsDirect = Number((rpsOf('bare Node.js TLS relay') / rpsOf('direct')).toFixed(2));
    const vsBareRelay = Number((rpsOf('print-conformance proxy') / rpsOf('bare Node.js TLS relay')).toFixed(2));

    // The first tunnel to each new host makes its certificate; the second finds it made.
    const first: number[] = [];
    const later: number[] = [];
    for (const host of newHosts) {
      const hostOrigin = `https://${host}`;
      // The proxy sends intercepted hosts' requests to its target: the name never has to resolve.
      first.push(await firstAnswerMs(proxy.url, hostOrigin, ca));
      later.push(await firstAnswerMs(proxy.url, hostOrigin, ca));
    }
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return Number((sorted[Math.floor(sorted.length / 2)] ?? Number.NaN).toFixed(1));
    };
    return {
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      rows,
      vsMitmdump,
      vsDirect,
      bareRelayVsDirect,
      vsBareRelay,
      newHostFirstAnswerMs: median(first),
      knownHostFirstAnswerMs: median(later),
    };
  } finally {
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 5000))]);
      }
    }
    await stop(service.child);
    rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchHttpsInterception());
