import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { BIN, runCli } from '../helpers/cli.js';

// How a long session stops, started as a user starts it: real signals, real pipes. Every signal
// that ends it ends it gracefully (reports written, the recording whole); a console that goes
// away does not end it; SIGUSR1 opens no debugger.

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-stopping-'));
});
const started: ChildProcess[] = [];
afterEach(() => {
  // A test that failed halfway leaves no session running.
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

interface Session {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the CLI with piped output and waits for its listening line. */
async function start(args: string[], place: string): Promise<Session> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: place,
    env: { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined, GITHUB_STEP_SUMMARY: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  const wrapped = args.includes('--');
  const listening = () => /listening on (http:\/\/\S+\/)\n/.exec(wrapped ? err : out)?.[1];
  while (!listening()) {
    if (child.exitCode !== null) throw new Error(`exited: ${err}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, url: listening() as string, stdout: () => out, stderr: () => err, exited };
}

function place(name: string): string {
  return mkdtempSync(join(folder, `${name}-`));
}

/** A few exchanges of the interface through the proxy: an order, a read of its checkout. */
async function traffic(proxyUrl: string): Promise<void> {
  const order = await fetch(`${proxyUrl}orders`, { method: 'POST' });
  const { checkout } = (await order.json()) as { checkout: { setupUrl: string } };
  await (await fetch(checkout.setupUrl, { headers: { accept: 'application/json' } })).text();
}

function proxyArgs(at: string, more: string[] = []): string[] {
  return [
    'proxy',
    '--target',
    service.baseUrl,
    '--record',
    join(at, 'traffic.ndjson'),
    '--report-dir',
    join(at, 'reports'),
    ...more,
  ];
}

function recordedLines(at: string): string[] {
  return readFileSync(join(at, 'traffic.ndjson'), 'utf8').split('\n').filter(Boolean);
}

describe('a proxy session stopping', () => {
  for (const signal of ['SIGHUP', 'SIGUSR2', 'SIGTERM'] as const)
    it(`on ${signal} writes its reports and its recording whole and exits with its verdict`, async () => {
      const at = place(signal);
      const session = await start(proxyArgs(at), at);
      await traffic(session.url);
      session.child.kill(signal);
      const { code, signal: killedBy } = await session.exited;
      expect(killedBy).toBeNull();
      expect(code).toBe(0);
      // The order is not judged by a rule: one exchange of the interface, two recorded.
      expect(JSON.parse(readFileSync(join(at, 'reports', 'results.json'), 'utf8')).exchanges).toBe(1);
      for (const line of recordedLines(at)) JSON.parse(line);
      expect(recordedLines(at)).toHaveLength(2);
    });

  it('goes on when its stdout and stderr readers are gone, and writes its reports at the end', async () => {
    const at = place('lost-console');
    const session = await start(proxyArgs(at, ['--summary-interval', '0.05']), at);
    // The reading ends close: the next line written to either fails (EPIPE).
    session.child.stdout?.destroy();
    session.child.stderr?.destroy();
    for (let round = 0; round < 3; round += 1) {
      await traffic(session.url);
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
    expect(session.child.exitCode).toBeNull();
    session.child.kill('SIGTERM');
    const { code, signal } = await session.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(JSON.parse(readFileSync(join(at, 'reports', 'results.json'), 'utf8')).exchanges).toBe(3);
    expect(recordedLines(at)).toHaveLength(6);
  });

  it('stops waiting for an exchange in flight at a second SIGTERM, and still writes everything whole', async () => {
    // A target that takes requests and never answers: the exchange stays in flight.
    const held: Socket[] = [];
    const silent: Server = createServer((socket) => {
      held.push(socket);
      socket.on('error', () => {});
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const port = (silent.address() as { port: number }).port;
    try {
      const at = place('second-signal');
      const session = await start(
        [
          'proxy',
          '--target',
          `http://127.0.0.1:${port}/v2/`,
          '--record',
          join(at, 'traffic.ndjson'),
          '--report-dir',
          join(at, 'reports'),
          '--drain-timeout',
          '10m',
        ],
        at,
      );
      const pending = fetch(`${session.url}v2/orders`, { method: 'POST' }).catch(() => undefined);
      while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      session.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(session.child.exitCode).toBeNull();
      session.child.kill('SIGTERM');
      const { code, signal } = await session.exited;
      await pending;
      expect(signal).toBeNull();
      expect(code).toBe(2);
      expect(session.stderr()).toMatch(/cutting off 1 exchange\(s\) still in flight \(stopped again\)/);
      expect(existsSync(join(at, 'reports', 'results.json'))).toBe(true);
      expect(recordedLines(at)).toHaveLength(1);
      JSON.parse(recordedLines(at)[0] as string);
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });

  it('bounds the drain with --drain-timeout, and refuses a duration it cannot read', async () => {
    const held: Socket[] = [];
    const silent: Server = createServer((socket) => {
      held.push(socket);
      socket.on('error', () => {});
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const port = (silent.address() as { port: number }).port;
    try {
      const at = place('drain-timeout');
      const session = await start(
        ['proxy', '--target', `http://127.0.0.1:${port}/v2/`, '--report-dir', at, '--drain-timeout', '300ms'],
        at,
      );
      const pending = fetch(`${session.url}v2/orders`, { method: 'POST' }).catch(() => undefined);
      while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      session.child.kill('SIGINT');
      await session.exited;
      await pending;
      expect(session.stderr()).toMatch(/cutting off 1 exchange\(s\) still in flight after 0\.3 s/);
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
    const bad = await runCli(['proxy', '--target', service.baseUrl, '--drain-timeout', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--drain-timeout soon is not a duration/);
  });

  it('opens no debugger on SIGUSR1 and goes on serving', async () => {
    const at = place('usr1');
    const session = await start(proxyArgs(at), at);
    session.child.kill('SIGUSR1');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await traffic(session.url);
    expect(session.child.exitCode).toBeNull();
    // Node.js says so on stderr when its inspector opens.
    expect(session.stderr()).not.toMatch(/Debugger listening|inspector/i);
    session.child.kill('SIGTERM');
    expect((await session.exited).code).toBe(0);
  });

  it('removes the trust files made for a wrapped command that ignores SIGTERM, once the drain timeout ends it', async () => {
    const at = place('wrapped');
    const seen = join(at, 'bundle-path');
    const session = await start(
      [
        'proxy',
        '--target',
        service.baseUrl,
        '--report-dir',
        join(at, 'reports'),
        '--ca-dir',
        join(at, 'ca'),
        '--drain-timeout',
        '500ms',
        '--',
        'sh',
        '-c',
        `trap '' TERM; echo "$SSL_CERT_FILE" > ${seen}.part; mv ${seen}.part ${seen}; while :; do sleep 0.1; done`,
      ],
      at,
    );
    while (!existsSync(seen)) await new Promise((resolve) => setTimeout(resolve, 20));
    const bundle = readFileSync(seen, 'utf8').trim();
    expect(existsSync(bundle)).toBe(true);
    session.child.kill('SIGTERM');
    const { signal } = await session.exited;
    expect(signal).toBeNull();
    expect(existsSync(bundle)).toBe(false);
    expect(existsSync(join(at, 'reports', 'results.json'))).toBe(true);
    expect(session.url).toMatch(/^http:/);
  });
});

describe('serve stopping', () => {
  for (const signal of ['SIGHUP', 'SIGUSR2'] as const)
    it(`on ${signal} stops as on SIGTERM, exit 0`, async () => {
      const at = place(`serve-${signal}`);
      const session = await start(['serve'], at);
      session.child.kill(signal);
      expect(await session.exited).toEqual({ code: 0, signal: null });
    });

  it('lets a request in flight finish on SIGTERM, within --drain-timeout, and cuts it at a second SIGTERM', async () => {
    const at = place('serve-drain');
    const session = await start(['serve', '--fault', 'slow:post-orders:1500'], at);
    const answered = fetch(`${session.url}orders`, { method: 'POST' }).then((answer) => answer.status);
    await new Promise((resolve) => setTimeout(resolve, 300));
    session.child.kill('SIGTERM');
    expect(await answered).toBe(201);
    expect(await session.exited).toEqual({ code: 0, signal: null });

    const hurried = await start(['serve', '--fault', 'slow:post-orders:60000'], place('serve-hurried'));
    const cut = fetch(`${hurried.url}orders`, { method: 'POST' }).then(
      (answer) => answer.status,
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    hurried.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hurried.child.exitCode).toBeNull();
    hurried.child.kill('SIGTERM');
    expect(await cut).toBe('cut');
    expect(await hurried.exited).toEqual({ code: 0, signal: null });
  });

  it('goes on serving when its stdout and stderr readers are gone', async () => {
    const at = place('serve-lost');
    // A webhook no one answers: each try is a line on stderr.
    const session = await start(['serve', '--webhook-url', 'http://127.0.0.1:9/hook'], at);
    session.child.stdout?.destroy();
    session.child.stderr?.destroy();
    const answer = await fetch(`${session.url}orders`, { method: 'POST' });
    expect(answer.status).toBe(201);
    const { id } = (await answer.json()) as { id: string };
    const origin = new URL(session.url).origin;
    const moved = await fetch(`${origin}/__print-conformance/api/orders/${encodeURIComponent(id)}/status`, {
      method: 'POST',
      body: JSON.stringify({ status: 'Shipped' }),
    });
    expect(moved.status).toBe(200);
    // The first try fails at once (nothing listens on port 9): its line goes to the closed stderr.
    await new Promise((resolve) => setTimeout(resolve, 500));
    session.child.kill('SIGUSR1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await fetch(`${session.url}orders`, { method: 'POST' })).status).toBe(201);
    session.child.kill('SIGTERM');
    expect(await session.exited).toEqual({ code: 0, signal: null });
  });
});
