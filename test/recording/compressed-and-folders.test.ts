import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService } from '../../src/reference/service.js';
import { BIN, runCli } from '../helpers/cli.js';

// validate reads what a long proxy session leaves: several files, a folder of rotated recordings
// (.ndjson, .ndjson.gz, .har in name order), gzip-compressed recordings, a line torn by kill -9.

let folder: string;
let lines: string[];
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-compressed-'));
  const made = await runCli(['run', '--record', join(folder, 'whole.ndjson'), '--report-dir', join(folder, 'run')]);
  expect(made.code).toBe(0);
  lines = readFileSync(join(folder, 'whole.ndjson'), 'utf8').split('\n').filter(Boolean);
}, 120_000);
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

async function validate(args: string[], name: string) {
  const result = await runCli(['validate', ...args, '--report-dir', join(folder, name)]);
  return { ...result, json: JSON.parse(readFileSync(join(folder, name, 'results.json'), 'utf8')) };
}

describe('validate over rotated recordings', () => {
  it('judges a folder of plain and gzip-compressed parts as it judges the whole, on one thread and on several', async () => {
    const whole = await validate([join(folder, 'whole.ndjson')], 'whole');
    expect(whole.code).toBe(0);
    const parts = join(folder, 'parts');
    mkdirSync(parts);
    const half = Math.floor(lines.length / 2);
    writeFileSync(join(parts, 'traffic-20261128T170000Z.ndjson.gz'), gzipSync(`${lines.slice(0, half).join('\n')}\n`));
    writeFileSync(join(parts, 'traffic.ndjson'), `${lines.slice(half).join('\n')}\n`);
    writeFileSync(join(parts, 'notes.txt'), 'not a recording');
    for (const jobs of ['1', '2']) {
      const split = await validate([parts, '--jobs', jobs], `parts-${jobs}`);
      expect(split.code).toBe(0);
      expect(split.json.exchanges).toBe(whole.json.exchanges);
      expect(split.json.summary).toEqual(whole.json.summary);
      expect(split.json.target).toBe(
        `${join(parts, 'traffic-20261128T170000Z.ndjson.gz')}, ${join(parts, 'traffic.ndjson')}`,
      );
    }
  });

  it('replays a folder of plain and gzip-compressed parts as it replays the whole', async () => {
    const service = await startReferenceService();
    try {
      const replayed = async (what: string, name: string) => {
        const result = await runCli(['replay', what, '--target', service.baseUrl, '--report-dir', join(folder, name)]);
        expect(result.code).toBe(0);
        return /^Replay: .*$/m.exec(result.stdout)?.[0];
      };
      const whole = await replayed(join(folder, 'whole.ndjson'), 'replay-whole');
      expect(whole).toMatch(/^Replay: \d+ of \d+ recorded exchanges sent again/);
      expect(await replayed(join(folder, 'parts'), 'replay-parts')).toBe(whole);
    } finally {
      await service.close();
    }
  });

  it('reads a gzip-compressed recording as a file and from standard input', async () => {
    const compressed = join(folder, 'whole.ndjson.gz');
    writeFileSync(compressed, gzipSync(readFileSync(join(folder, 'whole.ndjson'))));
    const file = await validate([compressed], 'gz-file');
    expect(file.code).toBe(0);
    const piped = spawnSync(process.execPath, [BIN, 'validate', '-', '--report-dir', join(folder, 'gz-stdin')], {
      input: readFileSync(compressed),
      cwd: folder,
    });
    expect(piped.status).toBe(0);
    const fromStdin = JSON.parse(readFileSync(join(folder, 'gz-stdin', 'results.json'), 'utf8'));
    expect(fromStdin.summary).toEqual(file.json.summary);
  });

  it('reports a line torn by kill -9 as one unreadable line and judges the rest', async () => {
    const torn = join(folder, 'torn.ndjson');
    const cut = lines[10] as string;
    writeFileSync(torn, `${lines.slice(0, 10).join('\n')}\n${cut.slice(0, 100)}\n${lines.slice(11).join('\n')}\n`);
    const result = await validate([torn], 'torn');
    expect(result.stderr).toMatch(/line 11 is not JSON \(cut off\?\); skipped/);
    expect(result.stderr.match(/is not JSON/g)).toHaveLength(1);
    expect(result.json.exchanges).toBeGreaterThan(0);
  });

  it('refuses a folder with no recording in it, in one line', async () => {
    const empty = join(folder, 'empty');
    mkdirSync(empty);
    const result = await runCli(['validate', empty]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/is a folder with no recording in it/);
  });
});
