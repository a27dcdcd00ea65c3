import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { type RecordedExchange, Recorder } from '../../proxy/recorder.js';

const folder = mkdtempSync(join(tmpdir(), 'print-conformance-recorder-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const exchange = (index: number, pad = ''): RecordedExchange => ({
  request: { method: 'GET', url: `http://t.test/v2/checkout/c${index}`, headers: { accept: 'application/json' } },
  response: { status: 200, headers: {}, body: { size: pad.length + 2, text: `{${pad}}` } },
  violations: [],
});

/** The file's whole lines, once it has `count` of them (a running recorder writes on its own). */
async function linesOnceThere(file: string, count: number): Promise<string[]> {
  for (let waited = 0; waited < 5000; waited += 20) {
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    if (lines.length >= count) return lines;
    await sleep(20);
  }
  throw new Error(`${file} never held ${count} lines`);
}

describe('the recorder', () => {
  it('writes lines while the proxy runs, without waiting for it to stop', async () => {
    const file = join(folder, 'running.ndjson');
    const recorder = new Recorder(file, undefined);
    await recorder.ready();
    recorder.record(exchange(1));
    recorder.record(exchange(2));
    const lines = await linesOnceThere(file, 2);
    expect(lines.map((line) => JSON.parse(line).request.url)).toEqual([
      'http://t.test/v2/checkout/c1',
      'http://t.test/v2/checkout/c2',
    ]);
    await recorder.close();
  });

  it('keeps every line of a burst larger than its buffer, in order, and all on close', async () => {
    const file = join(folder, 'burst.ndjson');
    const har = join(folder, 'burst.har');
    const recorder = new Recorder(file, har);
    await recorder.ready();
    for (let index = 0; index < 300; index += 1) recorder.record(exchange(index, ' '.repeat(900)));
    await recorder.close();
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines.map((line) => JSON.parse(line).request.url)).toEqual(
      Array.from({ length: 300 }, (_, index) => `http://t.test/v2/checkout/c${index}`),
    );
    expect(JSON.parse(readFileSync(har, 'utf8')).log.entries).toHaveLength(300);
  });
});
