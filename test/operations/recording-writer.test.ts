import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/findings/usage-error.js';
import { RecordingWriter } from '../../src/operations/recording-writer.js';
import { onSessionEvent, type SessionEvent, sessionTextLog } from '../../src/operations/session-events.js';

// The recording of a long session against what its surroundings do to it: a torn last line, a
// second session on the same file, a FIFO with no reader or a stalled one, a full disk, a folder
// removed, rotation.

let folder: string;
const told: SessionEvent[] = [];
const lines: string[] = [];
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-recording-writer-'));
  onSessionEvent((event) => told.push(event));
  sessionTextLog((line) => lines.push(line));
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

const line = (n: number, padding = 0) => JSON.stringify({ n, pad: 'x'.repeat(padding) });
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function place(name: string): string {
  const at = join(folder, name);
  mkdirSync(at);
  return at;
}

describe('the recording writer', () => {
  it('starts its first line on a fresh line after a torn one left by a session cut short', async () => {
    const file = join(place('torn'), 'traffic.ndjson');
    writeFileSync(file, `${line(1)}\n{"n":2,"pad":"xx`);
    const writer = new RecordingWriter(file);
    writer.append(line(3));
    await writer.close();
    expect(readFileSync(file, 'utf8')).toBe(`${line(1)}\n{"n":2,"pad":"xx\n${line(3)}\n`);
  });

  it('refuses a second session on the same file, and takes over a lock whose session is gone', async () => {
    const at = place('lock');
    const file = join(at, 'traffic.ndjson');
    const first = new RecordingWriter(file);
    expect(() => new RecordingWriter(file)).toThrow(UsageError);
    expect(() => new RecordingWriter(file)).toThrow(
      new RegExp(`another session records to it \\(process ${process.pid}`),
    );
    first.append(line(1));
    await first.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    // A lock left by a process killed with SIGKILL: its process id no longer runs.
    const gone = spawn(process.execPath, ['-e', '']);
    await once(gone, 'exit');
    writeFileSync(`${file}.lock`, `${gone.pid} ${(await import('node:os')).hostname()}\n`);
    const second = new RecordingWriter(file);
    second.append(line(2));
    await second.close();
    expect(readFileSync(file, 'utf8')).toBe(`${line(1)}\n${line(2)}\n`);
  });

  it.skipIf(process.platform === 'win32')(
    'does not wait for a FIFO to get a reader, and hands it what came meanwhile',
    async () => {
      const fifo = join(place('fifo'), 'traffic.ndjson');
      execFileSync('mkfifo', [fifo]);
      const started = performance.now();
      const writer = new RecordingWriter(fifo);
      expect(performance.now() - started).toBeLessThan(1000);
      writer.append(line(1));
      writer.flush();
      const reader = spawn('cat', [fifo]);
      let read = '';
      reader.stdout.on('data', (chunk) => {
        read += chunk;
      });
      while (!read.includes('\n')) await wait(20);
      writer.append(line(2));
      await writer.close();
      await once(reader, 'exit');
      expect(read).toBe(`${line(1)}\n${line(2)}\n`);
      expect(writer.failure).toBeUndefined();
    },
  );

  it.skipIf(process.platform === 'win32')(
    'stops writing to a FIFO whose reader stalls, holding no more than its bound, and says from which exchange',
    async () => {
      const fifo = join(place('stalled'), 'traffic.ndjson');
      execFileSync('mkfifo', [fifo]);
      // A reader that opens the FIFO and never reads.
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const writer = new RecordingWriter(fifo, { maxWaitingBytes: 1024 * 1024 });
        await wait(200);
        let n = 0;
        while (!writer.failure && n < 2000) {
          n += 1;
          writer.append(line(n, 10_000));
          writer.flush();
          if (n % 10 === 0) await wait(1);
        }
        expect(writer.failure).toMatch(/it does not keep up: 1 MiB wait to be written/);
        // Far fewer than the 2000 exchanges of 10 kB that would have been held without a bound.
        expect(n).toBeLessThan(400);
        const failed = told.find((event) => event.event === 'recording.failed' && event.file === fifo);
        expect(failed).toMatchObject({ event: 'recording.failed', fromSeq: expect.any(Number) });
        // The pipe takes 64 KiB before it stalls: the first exchanges reached it.
        expect((failed as { fromSeq: number }).fromSeq).toBeGreaterThan(1);
        expect(lines.some((text) => text.includes(`the recording ${fifo} is incomplete: from exchange`))).toBe(true);
        for (let more = 0; more < 100; more += 1) writer.append(line(more, 10_000));
        await writer.close();
      } finally {
        closeSync(reader);
      }
    },
  );

  it.skipIf(!existsSync('/dev/full'))('tells a full disk once, from the first exchange not written', async () => {
    const writer = new RecordingWriter('/dev/full');
    writer.append(line(1));
    writer.flush();
    await wait(100);
    writer.append(line(2));
    writer.flush();
    await writer.close();
    expect(writer.failure).toMatch(/\/dev\/full: cannot write it: no space left on the device/);
    expect(told.filter((event) => event.event === 'recording.failed' && event.file === '/dev/full')).toEqual([
      {
        event: 'recording.failed',
        file: '/dev/full',
        fromSeq: 1,
        reason: 'cannot write it: no space left on the device',
      },
    ]);
  });

  it('stops writing once its folder is removed, and says so', async () => {
    const at = place('removed');
    const file = join(at, 'traffic.ndjson');
    const writer = new RecordingWriter(file);
    writer.append(line(1));
    writer.flush();
    await wait(50);
    rmSync(at, { recursive: true, force: true });
    await wait(1500);
    writer.append(line(2));
    await writer.close();
    expect(writer.failure).toMatch(/it is gone \(no such file\)/);
    expect(told.find((event) => event.event === 'recording.failed' && event.file === file)).toMatchObject({
      fromSeq: 2,
    });
  });

  it('rotates by time, leaving the file alone while nothing is written', async () => {
    const at = place('rotate-every');
    const file = join(at, 'traffic.ndjson');
    const writer = new RecordingWriter(file, { rotation: { everyMs: 100 } });
    writer.append(line(1));
    writer.flush();
    const rotatedYet = () => readdirSync(at).some((name) => /^traffic-.*\.ndjson$/.test(name));
    while (!rotatedYet()) await wait(20);
    // Ticks of the timer that find nothing written leave the file alone.
    await wait(250);
    // Closed at once: no tick of the timer comes between.
    writer.append(line(2));
    await writer.close();
    const rotated = readdirSync(at).filter((name) => name !== 'traffic.ndjson');
    // One rotation with a line in it; the empty file that followed was not rotated again.
    expect(rotated, rotated.join(' ')).toHaveLength(1);
    expect(readFileSync(join(at, rotated[0] as string), 'utf8')).toBe(`${line(1)}\n`);
    expect(readFileSync(file, 'utf8')).toBe(`${line(2)}\n`);
  });

  it('rotates by size on a whole line into files named by their start time, gzip-compressed, keeping the newest', async () => {
    const at = place('rotate');
    const file = join(at, 'traffic.ndjson');
    const writer = new RecordingWriter(file, { rotation: { sizeBytes: 1, gzip: true, keep: 2 } });
    for (let n = 1; n <= 4; n += 1) {
      writer.append(line(n));
      writer.flush();
      await wait(30);
    }
    writer.append(line(5));
    await writer.close();
    const names = readdirSync(at).sort();
    expect(names.filter((name) => name.endsWith('.lock') || name.endsWith('.tmp'))).toEqual([]);
    const rotated = names.filter((name) => name !== 'traffic.ndjson');
    expect(rotated).toHaveLength(2);
    for (const name of rotated) expect(name).toMatch(/^traffic-\d{8}T\d{6}Z(?:_\d{3})?\.ndjson\.gz$/);
    // The newest two rotated files hold exchanges 3 and 4, each a whole line; the current one 5.
    const texts = rotated.map((name) => gunzipSync(readFileSync(join(at, name))).toString());
    expect(texts).toEqual([`${line(3)}\n`, `${line(4)}\n`]);
    expect(readFileSync(file, 'utf8')).toBe(`${line(5)}\n`);
  });
});
