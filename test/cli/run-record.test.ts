import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// run --record FILE and --har FILE write the suite's own exchanges as the proxy writes a session,
// credentials redacted, so that validate, replay or a bug report can take them.

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-run-record-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('run --record and --har', () => {
  it('write every exchange of the run, its target named and the token redacted, for validate to read', async () => {
    const [ndjson, har] = [join(folder, 'run.ndjson'), join(folder, 'run.har')];
    const token = 'tok-recorded-run-4711';
    const result = await runCli([
      '--quiet',
      '--token',
      token,
      '--record',
      ndjson,
      '--har',
      har,
      '--report-dir',
      join(folder, 'r'),
    ]);
    expect(result.code, result.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(folder, 'r', 'results.json'), 'utf8'));
    const lines = readFileSync(ndjson, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(results.exchanges);
    for (const line of lines) {
      expect(line.target).toBe(results.target);
      expect(Array.isArray(line.violations)).toBe(true);
    }
    const log = JSON.parse(readFileSync(har, 'utf8')).log;
    expect(log.entries).toHaveLength(results.exchanges);
    expect(log._target).toBe(results.target);
    for (const file of [ndjson, har]) expect(readFileSync(file, 'utf8')).not.toContain(token);
    const fromNdjson = await runCli(['validate', ndjson, '--report-dir', join(folder, 'v1')]);
    const fromHar = await runCli(['validate', har, '--report-dir', join(folder, 'v2')]);
    expect(fromNdjson.stderr).toContain(`${results.exchanges} exchanges read`);
    expect(fromNdjson.code).not.toBe(2);
    const verdicts = (out: string) => out.split('\n').filter((line) => /^[a-zA-Z]+ +[a-z]+\.\S+ /.test(line));
    expect(verdicts(fromHar.stdout)).toEqual(verdicts(fromNdjson.stdout));
  });

  it('refuses one file named for both, before anything is sent', async () => {
    const same = join(folder, 'same.ndjson');
    const result = await runCli(['--record', same, '--har', same, '--report-dir', join(folder, 'r2')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(same)).toBe(false);
  });
});
