import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFault } from '../../src/reference/faults.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { BIN, runCli } from '../helpers/cli.js';
import { setUpWithShortReturnUrl } from '../helpers/proxy-fixture.js';

// The admin port of a proxy or serve that runs for days, as a supervisor, a load balancer and
// Prometheus meet it: started as a user starts the command.

let service: ReferenceService;
let slow: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  slow = await startReferenceService({ faults: [parseFault('slow:post-orders:2500')] });
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-admin-'));
});
afterAll(async () => {
  await service.close();
  await slow.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Starts a serving command and waits for its "listening on" line; the admin line comes before it. */
async function startServing(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const printed = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk) => {
    printed.stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    printed.stderr += chunk;
  });
  while (!/listening on \S+\n/.test(printed.stdout)) {
    if (child.exitCode !== null) throw new Error(`${args[0]} exited: ${printed.stderr}`);
    await Promise.race([once(child.stdout as NodeJS.ReadableStream, 'data'), once(child, 'exit')]);
  }
  const admin = /^admin on (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(printed.stdout)?.[1];
  const url = /\nlistening on (http:\/\/\S+\/)\n/.exec(printed.stdout)?.[1];
  return {
    child,
    admin: admin as string,
    url: url as string,
    printed,
    exited: once(child, 'exit') as Promise<[number | null]>,
  };
}

async function get(url: string, headers: Record<string, string> = {}) {
  const answer = await fetch(url, { headers });
  return { status: answer.status, type: answer.headers.get('content-type'), text: await answer.text() };
}

/** Every sample line of a Prometheus text exposition: name{labels} value. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    found.set(match[1] as string, Number(match[2]));
  }
  return found;
}

describe('--admin-port', () => {
  it('serves /livez, /readyz and /metrics (Prometheus and OpenMetrics), and nothing else', async () => {
    const proxy = await startServing(['proxy', '--target', service.baseUrl, '--admin-port', '0', '--quiet']);
    try {
      expect(proxy.printed.stdout).toMatch(/^admin on http:\/\/127\.0\.0\.1:\d+\/\nlistening on /);
      expect(await get(`${proxy.admin}livez`)).toMatchObject({ status: 200 });
      expect(await get(`${proxy.admin}readyz`)).toMatchObject({ status: 200 });
      for (const path of ['', 'metricsx', '__print-conformance/', 'v2/orders', 'livez/x'])
        expect((await get(`${proxy.admin}${path}`)).status).toBe(404);
      expect((await fetch(`${proxy.admin}metrics`, { method: 'POST', body: 'x' })).status).toBe(405);

      // One broken exchange (a breach of a request rule) and one clean one, from a named client test.
      const test = { 'print-conformance-test': 'secret-test-name-4711' };
      const bad = await setUpWithShortReturnUrl(proxy.url);
      expect(bad.status).toBe(400);
      const code = new URL(bad.url).pathname.split('/').pop() as string;
      const order = (await (await fetch(`${proxy.url}orders`, { method: 'POST', headers: test })).json()) as {
        checkout: { setupUrl: string };
      };
      const read = await fetch(order.checkout.setupUrl, { headers: { ...test, accept: 'application/json' } });
      expect(read.status).toBe(200);

      const text = await get(`${proxy.admin}metrics`);
      expect(text.type).toMatch(/^text\/plain; version=0\.0\.4/);
      const metrics = samples(text.text);
      expect(metrics.get('print_conformance_exchanges_total{face="proxy",verdict="broken"}')).toBe(1);
      expect(metrics.get('print_conformance_exchanges_total{face="proxy",verdict="clean"}')).toBe(1);
      // Order answers are read for the URLs they give, and judged by no rule.
      expect(metrics.get('print_conformance_exchanges_total{face="proxy",verdict="not judged"}')).toBe(2);
      expect(
        metrics.get(
          'print_conformance_breaches_total{rule="checkout.return-url.length",severity="must",side="request"}',
        ),
      ).toBe(1);
      expect(metrics.get('print_conformance_upstream_answer_seconds_count{operation="post-checkout"}')).toBe(1);
      expect(metrics.get('print_conformance_upstream_answer_seconds_count{operation="get-checkout"}')).toBe(1);
      expect(metrics.get('print_conformance_upstream_answer_seconds_count{operation="post-orders"}')).toBe(2);
      expect(metrics.get('print_conformance_refusals_total{reason="enforce"}')).toBe(0);
      expect(metrics.get('print_conformance_live_window_bytes')).toBeGreaterThan(0);
      expect(metrics.has('print_conformance_open_client_connections')).toBe(true);
      expect(metrics.has('print_conformance_open_event_streams')).toBe(true);
      expect(metrics.get('print_conformance_process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(metrics.get('print_conformance_process_open_fds')).toBeGreaterThan(0);
      expect(metrics.has('print_conformance_nodejs_eventloop_lag_p99_seconds')).toBe(true);
      // Nothing of the traffic: no URL, checkout code, test name or host.
      for (const unseen of [code, 'secret-test-name-4711', '127.0.0.1', 'http', '/v2/', 'checkout/'])
        expect(text.text).not.toContain(unseen);

      const open = await get(`${proxy.admin}metrics`, {
        accept: 'application/openmetrics-text; version=1.0.0; charset=utf-8,text/plain;version=0.0.4;q=0.5',
      });
      expect(open.type).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
      expect(open.text).toMatch(/\n# EOF\n$/);
      expect(open.text).toMatch(/\n# TYPE print_conformance_exchanges counter\n/);
      expect(open.text).toMatch(/\nprint_conformance_exchanges_total\{face="proxy",verdict="broken"\} 1\n/);
      // And the Prometheus text of the next scrape still names its counters with _total.
      expect((await get(`${proxy.admin}metrics`)).text).toMatch(/\n# TYPE print_conformance_exchanges_total counter\n/);
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
    }
  });

  it('answers /readyz 503 from the moment a stop begins, while a slow exchange drains', async () => {
    const proxy = await startServing(['proxy', '--target', slow.baseUrl, '--admin-port', '0', '--quiet']);
    const inFlight = fetch(`${proxy.url}orders`, { method: 'POST' });
    // The exchange is under way: the service holds its answer for 2.5 s.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await get(`${proxy.admin}readyz`)).status).toBe(200);
    proxy.child.kill('SIGTERM');
    let ready = 200;
    for (let tries = 0; tries < 40 && ready === 200; tries += 1) {
      ready = (await get(`${proxy.admin}readyz`)).status;
      if (ready === 200) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(ready).toBe(503);
    // Still alive and serving what it has in flight.
    expect((await get(`${proxy.admin}livez`)).status).toBe(200);
    expect((await inFlight).status).toBe(201);
    await proxy.exited;
    expect(proxy.printed.stdout).toMatch(/proxy summary: 1 exchange, 1 answered by the target/);
  });

  it('serve has one too, and counts its exchanges as served', async () => {
    const serve = await startServing(['serve', '--admin-port', '0']);
    try {
      const order = (await (await fetch(`${serve.url}orders`, { method: 'POST' })).json()) as {
        checkout: { setupUrl: string };
      };
      expect((await fetch(order.checkout.setupUrl, { headers: { accept: 'application/json' } })).status).toBe(200);
      expect((await get(`${serve.admin}readyz`)).status).toBe(200);
      const metrics = samples((await get(`${serve.admin}metrics`)).text);
      expect(metrics.get('print_conformance_exchanges_total{face="serve",verdict="clean"}')).toBe(1);
      expect(metrics.get('print_conformance_exchanges_total{face="serve",verdict="not judged"}')).toBe(1);
      expect(metrics.get('print_conformance_webhook_tries_total{outcome="delivered"}')).toBe(0);
    } finally {
      serve.child.kill('SIGTERM');
      const [code] = await serve.exited;
      expect(code).toBe(0);
    }
  });

  it('refuses bad values in one line, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--admin-port', 'abc'], /^print-conformance: --admin-port needs a port number from 0 to 65535/],
      [['--admin-port', '70000'], /^print-conformance: --admin-port 70000 is not a port number/],
      [['--admin-host', '0.0.0.0'], /^print-conformance: --admin-host needs --admin-port\n$/],
      [
        ['--log-format', 'jsno'],
        /^print-conformance: --log-format jsno is not one of text, json \(did you mean json\?\)/,
      ],
    ];
    for (const [args, message] of cases) {
      for (const command of [['proxy', '--target', service.baseUrl], ['serve']]) {
        const result = await runCli([...command, ...args], { cwd: folder });
        expect(result.code, `${command[0]} ${args.join(' ')}`).toBe(2);
        expect(result.stderr).toMatch(message);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
      }
    }
  });

  it('says in one line that the admin port is in use, exit 2', async () => {
    const serve = await startServing(['serve', '--admin-port', '0']);
    try {
      const port = new URL(serve.admin).port;
      const result = await runCli(['proxy', '--target', service.baseUrl, '--admin-port', port], { cwd: folder });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `print-conformance: port ${port} on 127.0.0.1 is in use; choose another with --admin-port\n`,
      );
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
  it('tells a recording that stops being written, and each rotation, as log events and in /metrics', async () => {
    const full = await startServing([
      'proxy',
      '--target',
      service.baseUrl,
      '--record',
      '/dev/full',
      '--admin-port',
      '0',
      '--log-format',
      'json',
      '--report-dir',
      join(folder, 'full-reports'),
    ]);
    mkdirSync(join(folder, 'rotated'));
    const recorded = join(folder, 'rotated', 'traffic.ndjson');
    const rotating = await startServing([
      'proxy',
      '--target',
      service.baseUrl,
      '--record',
      recorded,
      '--rotate-size',
      '1KB',
      '--admin-port',
      '0',
      '--log-format',
      'json',
      '--report-dir',
      join(folder, 'rotated-reports'),
    ]);
    for (const proxy of [full, rotating])
      for (let index = 0; index < 3; index += 1) await fetch(`${proxy.url}orders`, { method: 'POST' });
    // The writer flushes in batches: the failure and the rotations are told once the lines go out.
    const failures = 'print_conformance_recording_write_failures_total{reason="write"}';
    for (let tries = 0; tries < 100; tries += 1) {
      if (samples((await get(`${full.admin}metrics`)).text).get(failures) === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(samples((await get(`${full.admin}metrics`)).text).get(failures)).toBe(1);
    for (let tries = 0; tries < 100 && !rotating.printed.stderr.includes('recording.rotated'); tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(
      samples((await get(`${rotating.admin}metrics`)).text).get('print_conformance_recording_bytes_total'),
    ).toBeGreaterThan(1024);
    for (const proxy of [full, rotating]) proxy.child.kill('SIGTERM');
    expect((await full.exited)[0]).toBe(2);
    await rotating.exited;
    const events = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const failed = events(full.printed.stderr).filter((record) => record.event === 'recording.failed');
    expect(failed).toEqual([expect.objectContaining({ level: 'error', file: '/dev/full', exchange: 1 })]);
    const rotated = events(rotating.printed.stderr).filter((record) => record.event === 'recording.rotated');
    expect(rotated.length).toBeGreaterThan(0);
    expect(rotated[0]).toMatchObject({ file: recorded, rotatedTo: expect.stringMatching(/traffic-\d{8}T\d{6}Z/) });
  });
});
