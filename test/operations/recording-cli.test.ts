import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { setUpWithShortReturnUrl } from '../helpers/proxy-fixture.js';

// The proxy's recording and reports, started as a user starts it, when the places they go to
// misbehave: a second session on one file, a FIFO, rotation, a report that cannot be written.

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-recording-cli-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

function place(name: string): string {
  return mkdtempSync(join(folder, `${name}-`));
}

async function orderAndRead(proxyUrl: string): Promise<void> {
  const order = await fetch(`${proxyUrl}orders`, { method: 'POST' });
  const { checkout } = (await order.json()) as { checkout: { setupUrl: string } };
  await (await fetch(checkout.setupUrl, { headers: { accept: 'application/json' } })).text();
}

const sessions: Awaited<ReturnType<typeof startListeningCli>>[] = [];
afterEach(() => {
  // A test that failed halfway leaves no session running.
  for (const session of sessions.splice(0)) if (session.child.exitCode === null) session.child.kill('SIGKILL');
});

async function proxy(args: string[]) {
  const session = await startListeningCli(['proxy', '--target', service.baseUrl, ...args]);
  sessions.push(session);
  return session;
}

describe('the proxy recording', () => {
  it('refuses, exit 2 in one line, a second session appending to a recording in use', async () => {
    const at = place('two');
    const record = join(at, 'traffic.ndjson');
    const first = await proxy(['--record', record, '--report-dir', join(at, 'one')]);
    const second = await runCli(['proxy', '--target', service.baseUrl, '--record', record, '--report-dir', at]);
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toMatch(/another session records to it \(process \d+\)/);
    await orderAndRead(first.url);
    expect((await first.stop()).code).toBe(0);
    expect(existsSync(`${record}.lock`)).toBe(false);
  });

  it('appends after a session killed with SIGKILL: takes its lock over, starts on a fresh line, and validate judges all but the torn line', async () => {
    const at = place('killed');
    const record = join(at, 'traffic.ndjson');
    const first = await proxy(['--record', record, '--report-dir', join(at, 'one')]);
    await orderAndRead(first.url);
    await new Promise((resolve) => setTimeout(resolve, 100));
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    expect(existsSync(`${record}.lock`)).toBe(true);
    // The line a write cut short would leave.
    appendFileSync(record, '{"target":"http://127.0.0.1:1/v2/","request":{"method":"GET","ur');
    const second = await proxy(['--record', record, '--report-dir', join(at, 'two')]);
    await orderAndRead(second.url);
    expect((await second.stop()).code).toBe(0);
    const lines = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(5);
    const validated = await runCli(['validate', record, '--report-dir', join(at, 'validate')]);
    expect(validated.code).toBe(0);
    expect(validated.stderr.match(/is not JSON/g)).toHaveLength(1);
    expect(validated.stderr).toMatch(/line 3 is not JSON \(cut off\?\); skipped/);
    expect(JSON.parse(readFileSync(join(at, 'validate', 'results.json'), 'utf8')).exchanges).toBe(2);
  });

  it.skipIf(process.platform === 'win32')('starts at once when --record names a FIFO no one reads yet', async () => {
    const fifo = join(place('fifo'), 'traffic.ndjson');
    execFileSync('mkfifo', [fifo]);
    const session = await proxy(['--record', fifo, '--report-dir', join(folder, 'fifo-reports')]);
    await orderAndRead(session.url);
    const { code, stderr } = await session.stop();
    // No reader ever came: the recording is incomplete, and the session says so.
    expect(code).toBe(2);
    expect(stderr).toMatch(/from exchange 1 on nothing is written to it \(no reader ever opened it\)/);
  });

  it('keeps a failed rule its exit code 1 when the recording is incomplete, and every report says so', async () => {
    const at = place('incomplete');
    const session = await proxy(['--record', '/dev/full', '--report-dir', at, '--summary-md', join(at, 'summary.md')]);
    await setUpWithShortReturnUrl(session.url);
    const { code, stderr: said } = await session.stop();
    expect(code).toBe(1);
    const result = JSON.parse(readFileSync(join(at, 'results.json'), 'utf8'));
    expect(result.recording, said).toEqual({
      complete: false,
      problem: expect.stringMatching(/^\/dev\/full: cannot write/),
    });
    expect(readFileSync(join(at, 'junit.xml'), 'utf8')).toMatch(/<property name="recording" value="incomplete: /);
    expect(readFileSync(join(at, 'summary.md'), 'utf8')).toMatch(/The recording is incomplete: /);
  });

  it('tells a HAR file that cannot be written as it tells the NDJSON recording, and exits 2', async () => {
    const at = place('har-full');
    const session = await proxy(['--har', '/dev/full', '--report-dir', at]);
    await orderAndRead(session.url);
    const { code, stderr } = await session.stop();
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /the recording \/dev\/full is incomplete: from exchange 1 on nothing is written to it \(cannot write it: no space left on the device\)/,
    );
    expect(JSON.parse(readFileSync(join(at, 'results.json'), 'utf8')).recording.complete).toBe(false);
  });

  it('exits 2 when a report cannot be written', async () => {
    const at = place('unwritable');
    const report = join(at, 'results.json');
    const session = await proxy(['--json-report', report, '--report-dir', at]);
    await setUpWithShortReturnUrl(session.url);
    // A folder where the report goes: it cannot take its place (as a folder it cannot write would).
    mkdirSync(join(report, 'inside'), { recursive: true });
    const { code, stderr } = await session.stop();
    expect(stderr).toMatch(/cannot write the reports/);
    expect(code).toBe(2);
  });

  it('rotates by size into gzip-compressed files that validate reads as a folder, judging what one file holds', async () => {
    const at = place('rotate');
    const recordings = join(at, 'recordings');
    mkdirSync(recordings);
    const record = join(recordings, 'traffic.ndjson');
    const session = await proxy([
      '--record',
      record,
      '--rotate-size',
      '1',
      '--rotate-gzip',
      '--report-dir',
      join(at, 'proxy'),
    ]);
    for (let round = 0; round < 3; round += 1) {
      await orderAndRead(session.url);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await session.stop()).code).toBe(0);
    const names = readdirSync(recordings).sort();
    expect(names.filter((name) => name.endsWith('.ndjson.gz')).length).toBeGreaterThanOrEqual(3);
    for (const name of names) expect(name).toMatch(/^traffic(?:-\d{8}T\d{6}Z(?:_\d{3})?\.ndjson\.gz|\.ndjson)$/);
    const whole = await runCli(['validate', recordings, '--report-dir', join(at, 'validate')]);
    expect(whole.code).toBe(0);
    const proxied = JSON.parse(readFileSync(join(at, 'proxy', 'results.json'), 'utf8'));
    const validated = JSON.parse(readFileSync(join(at, 'validate', 'results.json'), 'utf8'));
    expect(validated.exchanges).toBe(proxied.exchanges);
    expect(validated.summary).toEqual(proxied.summary);
  });

  it('refuses rotation options it cannot use, in one line, exit 2', async () => {
    for (const [args, message] of [
      [['--rotate-size', '1MiB'], /--rotate-size rotates the --record file: give --record FILE too/],
      [['--record', 'x.ndjson', '--rotate-every', '0.5'], /--rotate-every 0\.5 is not a duration of at least 1000 ms/],
      [['--record', 'x.ndjson', '--rotate-keep', '3'], /--rotate-keep needs --rotate-size SIZE or --rotate-every/],
      [['--record', 'x.ndjson', '--rotate-size', 'big'], /--rotate-size big is not a size/],
    ] as const) {
      const result = await runCli(['proxy', '--target', service.baseUrl, ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
  });
});
