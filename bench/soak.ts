import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request, WebSocket } from 'undici';
import { MiB, processMemory } from './process-memory.js';
import { BIN, startListening, stop } from './start-cli.js';

// A proxy that runs for days must not grow: a soak of the proxy in front of serve, at a constant
// arrival rate of GET checkout with some set-ups among them, the live page read and its event
// stream open throughout, recording with rotation on, its metrics scraped as Prometheus would. It samples the proxy's resident memory and
// open file descriptors from /proc every few seconds, and every request's latency, and holds them
// to three targets: RSS grows at most 8 MiB an hour after the warm-up (least squares), the open
// descriptors are back to their baseline after a cool-down, and the p99 latency of the last window
// is within 20 % of the first's. Long (30 minutes by default): run only with BENCH_ONLY=soak.
//
// Before the clock starts, a fill: set-ups sent as fast as the two processes take them, until
// what the proxy learns (the set-ups it keeps for checkout.get.consistent, the URLs order answers
// gave) and what serve keeps (its newest orders) are at their bounds, as after days of traffic.
// Without it a half-hour soak measures those bounded stores filling, not whether anything leaks.
//
// Resident memory is sampled twice over: as it is, and once a minute right after a full garbage
// collection asked for through each process's inspector (started on a loopback port for the soak
// alone). V8 lets garbage pile up until its next full collection, which at this rate comes every
// twenty minutes or so: a half-hour slope of the raw samples measures where that cycle stood, not
// growth. The slope after a collection is what the process cannot give back: the target.

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
/** Requests a second, arriving at a constant rate whatever the answers take (an open model). */
const RATE = Number(process.env.SOAK_RATE ?? 100);
/** One request in this many is a checkout set-up (a new order, then its POST checkout); the rest GET checkout. */
const SET_UP_EVERY = Number(process.env.SOAK_SET_UP_EVERY ?? 20);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 5);
/** The first tenth (3 of 30 minutes) is warm-up: compiled code, pools and windows filling. */
const WARM_UP_MS = Number(process.env.SOAK_WARM_UP_MINUTES ?? MINUTES / 10) * 60_000;
/** The windows whose p99 latencies are compared: 5 of 30 minutes, a sixth of a shorter run. */
const WINDOW_MS = Number(process.env.SOAK_WINDOW_MINUTES ?? Math.min(5, MINUTES / 6)) * 60_000;
const COOL_DOWN_MS = Number(process.env.SOAK_COOL_DOWN_SECONDS ?? 30) * 1000;
/** Requests waiting for an answer at most: past it an arrival is counted as dropped, not sent. */
const MAX_IN_FLIGHT = 256;
/** The admin port's /metrics is scraped this often (Prometheus' default interval). */
const SCRAPE_SECONDS = Number(process.env.SOAK_SCRAPE_SECONDS ?? 15);
/**
 * Set-ups of the fill: more than the proxy keeps (10 000 set-ups; 50 000 given URLs of each kind,
 * several an order) and serve keeps (10 000 orders), so that every bound has been passed. 0: none.
 */
const FILL_SET_UPS = Number(process.env.SOAK_FILL_SET_UPS ?? 30_000);
/** Set-ups of the fill in flight at once. */
const FILL_CONCURRENCY = 32;
/** How often each process is asked for a full garbage collection before its memory is sampled. */
const SETTLED_SECONDS = Number(process.env.SOAK_SETTLED_SECONDS ?? 60);

/** A loopback port free now, for a process's inspector. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a command with Node's inspector on a loopback port of the soak's, to ask it for collections. */
async function startInspectable(args: string[], quiet: boolean, measured = false) {
  const port = await freePort();
  const before = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${before ?? ''} --inspect=127.0.0.1:${port}`.trim();
  try {
    return { ...(await startListening(args, quiet, undefined, measured)), inspector: port };
  } finally {
    if (before === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = before;
  }
}

/** Asks the process behind an inspector port for a full garbage collection, and waits for it. */
async function collectGarbage(port: number): Promise<void> {
  const targets = (await (await request(`http://127.0.0.1:${port}/json/list`)).body.json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
      socket.onmessage = (message) => {
        if (JSON.parse(String(message.data)).id === 1) resolve();
      };
      socket.onerror = () => reject(new Error(`the inspector on port ${port} failed`));
    });
  } finally {
    socket.close();
  }
}

const CHECKOUT_JSON = JSON.stringify({
  returnUrl: 'https://shop.example.test/return?order=1',
  billing: {
    address: { name: 'Print API', line1: 'Osloweg 75', postCode: '9700 GE', city: 'Groningen', country: 'NL' },
  },
});

/**
 * The recording's rotation options: SOAK_ROTATE_ARGS when given ("" for none), else
 * `--rotate-size 5MB` when this build's proxy has it.
 */
function rotationArgs(): string[] {
  const given = process.env.SOAK_ROTATE_ARGS;
  if (given !== undefined) return given.split(/\s+/).filter(Boolean);
  const help = spawnSync(process.execPath, [BIN, 'proxy', '--help'], { encoding: 'utf8' }).stdout ?? '';
  return help.includes('--rotate-size') ? ['--rotate-size', '5MB'] : [];
}

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

function p99(latencies: number[]): number {
  if (latencies.length === 0) return Number.NaN;
  const sorted = Float64Array.from(latencies).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] as number;
}

/** Keeps the event stream open, reading and dropping what it sends, reopening it if it ends. */
function holdEventStream(url: string, agent: Agent): () => void {
  let open = true;
  let abort = new AbortController();
  const connect = async () => {
    while (open) {
      abort = new AbortController();
      try {
        const answer = await request(url, { dispatcher: agent, signal: abort.signal });
        for await (const _chunk of answer.body) if (!open) break;
      } catch {
        // Closed by the proxy or by us: opened again while the soak runs.
      }
      if (open) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  void connect();
  return () => {
    open = false;
    abort.abort();
  };
}

/** Sends `count` set-ups (a new order, then its POST checkout), FILL_CONCURRENCY at once. */
async function fill(base: string, agent: Agent, count: number): Promise<{ seconds: number; failed: number }> {
  const started = performance.now();
  let next = 0;
  let failed = 0;
  const loop = async () => {
    while (next < count) {
      next += 1;
      try {
        const made = await request(`${base}orders`, { method: 'POST', dispatcher: agent });
        const { checkout } = (await made.body.json()) as { checkout: { setupUrl: string } };
        const setUp = await request(checkout.setupUrl, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: CHECKOUT_JSON,
        });
        await setUp.body.dump();
        if (setUp.statusCode >= 300) failed += 1;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: FILL_CONCURRENCY }, loop));
  return { seconds: Math.round((performance.now() - started) / 100) / 10, failed };
}

export async function benchSoak() {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-soak-'));
  const rotation = rotationArgs();
  const service = await startInspectable(['serve', '--port', '0'], false);
  let proxy: { child: ChildProcess; url: string; printed: string; inspector: number } | undefined;
  const agent = new Agent({ connections: 64, keepAliveTimeout: 4000 });
  try {
    proxy = await startInspectable(
      [
        'proxy',
        '--target',
        service.url,
        '--record',
        join(folder, 'traffic.ndjson'),
        ...rotation,
        '--summary-interval',
        '0',
        '--quiet',
        '--admin-port',
        '0',
      ],
      true,
      true,
    );
    const pid = proxy.child.pid as number;
    const base = proxy.url;
    const order = (await (await request(`${base}orders`, { method: 'POST', dispatcher: agent })).body.json()) as {
      checkout: { setupUrl: string };
    };
    const checkoutUrl = order.checkout.setupUrl;
    // The live page read once, its event stream open throughout, as a person watching it would.
    await (await request(`${base}__print-conformance/`, { dispatcher: agent })).body.dump();
    const closeStream = holdEventStream(`${base}__print-conformance/api/events`, agent);
    const admin = /^admin on (\S+)/m.exec(proxy.printed)?.[1];
    let scrapes = 0;
    const scraper = setInterval(() => {
      if (!admin) return;
      request(`${admin}metrics`)
        .then((answer) => answer.body.dump())
        .then(() => {
          scrapes += 1;
        })
        .catch(() => {});
    }, SCRAPE_SECONDS * 1000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const baselineFds = openFds(pid);
    const filled = FILL_SET_UPS > 0 ? await fill(base, agent, FILL_SET_UPS) : { seconds: 0, failed: 0 };

    const latencies: { at: number; ms: number }[] = [];
    const samples: { at: number; rssMiB: number; serveRssMiB: number; fds: number }[] = [];
    const servePid = service.child.pid as number;
    let inFlight = 0;
    let dropped = 0;
    let failed = 0;
    let sent = 0;
    const timed = async (url: string, options: Parameters<typeof request>[1]) => {
      const started = performance.now();
      const answer = await request(url, { ...options, dispatcher: agent });
      const text = await answer.body.text();
      latencies.push({ at: started, ms: performance.now() - started });
      if (answer.statusCode >= 500) failed += 1;
      return text;
    };
    const one = async (index: number) => {
      if (index % SET_UP_EVERY === 0) {
        const made = JSON.parse(await timed(`${base}orders`, { method: 'POST' })) as {
          checkout: { setupUrl: string };
        };
        await timed(made.checkout.setupUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: CHECKOUT_JSON,
        });
      } else await timed(checkoutUrl, { headers: { accept: 'application/json' } });
    };

    const started = performance.now();
    const durationMs = MINUTES * 60_000;
    const sampler = setInterval(() => {
      samples.push({
        at: performance.now() - started,
        rssMiB: processMemory(pid).rss / MiB,
        serveRssMiB: processMemory(servePid).rss / MiB,
        fds: openFds(pid),
      });
    }, SAMPLE_SECONDS * 1000);
    // Once a minute, each process collected whole, then its memory read: what it holds on to.
    const settled: { at: number; rssMiB: number; serveRssMiB: number }[] = [];
    const inspectors = { proxy: proxy.inspector, serve: service.inspector };
    let settling = false;
    const settler = setInterval(() => {
      if (settling) return;
      settling = true;
      Promise.all([collectGarbage(inspectors.proxy), collectGarbage(inspectors.serve)])
        .then(() =>
          settled.push({
            at: performance.now() - started,
            rssMiB: processMemory(pid).rss / MiB,
            serveRssMiB: processMemory(servePid).rss / MiB,
          }),
        )
        .catch(() => {})
        .finally(() => {
          settling = false;
        });
    }, SETTLED_SECONDS * 1000);
    const loadAverages: string[] = [];
    const loadSampler = setInterval(
      () =>
        loadAverages.push(
          loadavg()
            .map((n) => n.toFixed(2))
            .join(' '),
        ),
      60_000,
    );
    // Arrivals on a schedule from the start (no drift): each tick sends what is due by now.
    await new Promise<void>((done) => {
      const tick = setInterval(() => {
        const elapsed = performance.now() - started;
        const due = Math.floor((Math.min(elapsed, durationMs) * RATE) / 1000);
        while (sent < due) {
          sent += 1;
          if (inFlight >= MAX_IN_FLIGHT) {
            dropped += 1;
            continue;
          }
          inFlight += 1;
          one(sent)
            .catch(() => {
              failed += 1;
            })
            .finally(() => {
              inFlight -= 1;
            });
        }
        if (elapsed >= durationMs) {
          clearInterval(tick);
          done();
        }
      }, 10);
    });
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    clearInterval(sampler);
    clearInterval(settler);
    clearInterval(loadSampler);
    clearInterval(scraper);
    // Cool-down: the clients' connections closed, the event stream too, and time to let go.
    closeStream();
    await agent.close();
    await new Promise((resolve) => setTimeout(resolve, COOL_DOWN_MS));
    const fdsAfterCoolDown = openFds(pid);
    const rssAfterCoolDownMiB = processMemory(pid).rss / MiB;

    const afterWarmUp = samples.filter((s) => s.at >= WARM_UP_MS);
    const rssSlopeMiBPerHour = slope(afterWarmUp.map((s) => ({ x: s.at / 3_600_000, y: s.rssMiB })));
    const serveSlopeMiBPerHour = slope(afterWarmUp.map((s) => ({ x: s.at / 3_600_000, y: s.serveRssMiB })));
    const settledAfterWarmUp = settled.filter((s) => s.at >= WARM_UP_MS);
    const settledSlope = slope(settledAfterWarmUp.map((s) => ({ x: s.at / 3_600_000, y: s.rssMiB })));
    const serveSettledSlope = slope(settledAfterWarmUp.map((s) => ({ x: s.at / 3_600_000, y: s.serveRssMiB })));
    const relative = latencies.map((l) => ({ at: l.at - started, ms: l.ms }));
    const firstWindow = relative.filter((l) => l.at >= WARM_UP_MS && l.at < WARM_UP_MS + WINDOW_MS).map((l) => l.ms);
    const lastWindow = relative.filter((l) => l.at >= durationMs - WINDOW_MS).map((l) => l.ms);
    const p99First = p99(firstWindow);
    const p99Last = p99(lastWindow);
    const round = (n: number, digits = 2) => Number(n.toFixed(digits));
    const targets = [
      {
        target: 'proxy RSS slope after warm-up, each sample after a full GC, MiB/hour',
        measured: round(settledSlope),
        wanted: '≤ 8',
        met: settledSlope <= 8,
      },
      {
        target: 'serve RSS slope after warm-up, each sample after a full GC, MiB/hour',
        measured: round(serveSettledSlope),
        wanted: '≤ 8',
        met: serveSettledSlope <= 8,
      },
      {
        // A descriptor or two may differ by when a pooled connection is let go; more is a leak.
        target: `proxy open fds after a ${COOL_DOWN_MS / 1000} s cool-down (baseline ${baselineFds})`,
        measured: fdsAfterCoolDown,
        wanted: `≤ ${baselineFds + 2}`,
        met: fdsAfterCoolDown <= baselineFds + 2,
      },
      {
        target: `p99 latency, last ${WINDOW_MS / 60_000} min ÷ first ${WINDOW_MS / 60_000} min after warm-up`,
        measured: round(p99Last / p99First),
        wanted: '≤ 1.2',
        met: p99Last / p99First <= 1.2,
      },
    ];
    return {
      minutes: MINUTES,
      rate: RATE,
      setUpEvery: SET_UP_EVERY,
      rotation: rotation.join(' ') || 'none (this build has no --rotate-size)',
      requests: latencies.length,
      scrapes,
      dropped,
      failed,
      fill: { setUps: FILL_SET_UPS, ...filled },
      warmUpMinutes: WARM_UP_MS / 60_000,
      windowMinutes: WINDOW_MS / 60_000,
      rssMiB: {
        first: round(samples[0]?.rssMiB ?? Number.NaN, 1),
        afterWarmUp: round(afterWarmUp[0]?.rssMiB ?? Number.NaN, 1),
        last: round(samples.at(-1)?.rssMiB ?? Number.NaN, 1),
        afterCoolDown: round(rssAfterCoolDownMiB, 1),
        slopePerHour: round(rssSlopeMiBPerHour),
      },
      serveRssMiB: {
        first: round(samples[0]?.serveRssMiB ?? Number.NaN, 1),
        afterWarmUp: round(afterWarmUp[0]?.serveRssMiB ?? Number.NaN, 1),
        last: round(samples.at(-1)?.serveRssMiB ?? Number.NaN, 1),
        slopePerHour: round(serveSlopeMiBPerHour),
      },
      /** Slopes of the raw samples (MiB/hour): where V8's collection cycle stood, told for comparison. */
      rawSlopePerHour: { proxy: round(rssSlopeMiBPerHour), serve: round(serveSlopeMiBPerHour) },
      /** Resident memory after a full collection, a minute apart (MiB), proxy and serve. */
      settledByMinute: settled.map((sample) => [round(sample.rssMiB, 0), round(sample.serveRssMiB, 0)]),
      /** Resident memory a minute apart (MiB), proxy and serve: the shape behind the slopes. */
      rssByMinute: samples
        .filter((_, index) => index % Math.max(1, Math.round(60 / SAMPLE_SECONDS)) === 0)
        .map((sample) => [round(sample.rssMiB, 0), round(sample.serveRssMiB, 0)]),
      fds: { baseline: baselineFds, peak: Math.max(...samples.map((s) => s.fds)), afterCoolDown: fdsAfterCoolDown },
      p99ms: { first: round(p99First), last: round(p99Last) },
      loadAverages,
      targets,
    };
  } finally {
    if (proxy) await stop(proxy.child);
    await stop(service.child);
    await agent.destroy().catch(() => {});
    rmSync(folder, { recursive: true, force: true });
  }
}

// Alone: `npx tsx bench/soak.ts` (SOAK_MINUTES, SOAK_RATE, SOAK_SET_UP_EVERY, SOAK_SAMPLE_SECONDS,
// SOAK_WARM_UP_MINUTES, SOAK_WINDOW_MINUTES, SOAK_COOL_DOWN_SECONDS, SOAK_ROTATE_ARGS, SOAK_SCRAPE_SECONDS, SOAK_FILL_SET_UPS, SOAK_SETTLED_SECONDS, BENCH_PIN).
if (import.meta.url === `file://${process.argv[1]}`) {
  const soaked = await benchSoak();
  const { targets, ...rest } = soaked;
  console.log(JSON.stringify(rest, null, 2));
  console.table(targets);
}
