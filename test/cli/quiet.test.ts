import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { setUpWithShortReturnUrl } from '../helpers/proxy-fixture.js';

// --quiet, as the README gives it for every command that judges: no progress or per-exchange lines
// on stderr; on stdout the failures and the summary line, not the table of what held; problems
// still said.

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-quiet-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

const line = (code: string, body: string) =>
  JSON.stringify({
    request: { method: 'GET', url: `http://s.test/v2/checkout/${code}`, headers: { accept: 'application/json' } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { text: body } },
  });

describe('--quiet', () => {
  it('validate and merge print the summary and nothing on stderr', async () => {
    const recording = join(folder, 'traffic.ndjson');
    writeFileSync(recording, `${line('a', '{"amount": "x"}')}\n`);
    const loud = await runCli(['validate', recording, '--report-dir', join(folder, 'loud')]);
    expect(loud.stderr).toContain('exchanges read');
    const quiet = await runCli(['validate', recording, '--report-dir', join(folder, 'r'), '--quiet']);
    expect(quiet.code).toBe(loud.code);
    expect(quiet.stderr).toBe('');
    // The failure as the full table tells it, and the same summary line, but for the run's time.
    const withoutTime = (text: string) => text.replace(/ in \d+\.\d s\n$/, '');
    const lastLine = (text: string) => withoutTime(text).split('\n').at(-1);
    expect(lastLine(quiet.stdout)).toBe(lastLine(loud.stdout));
    // The full table goes on with the next rules; the columns are as wide as the rules shown need.
    const failure = (text: string) =>
      text.slice(text.indexOf('FAIL'), text.indexOf('\n\n', text.indexOf('FAIL'))).replace(/ +/g, ' ');
    expect(failure(quiet.stdout)).toMatch(/^FAIL +checkout\.get\.shape/);
    expect(failure(loud.stdout).startsWith(failure(quiet.stdout))).toBe(true);
    expect(loud.stdout).toMatch(/^pass /m);
    expect(quiet.stdout).not.toMatch(/^(pass|skip|seen) /m);
    expect(quiet.stdout).not.toContain('Coverage');
    const merged = await runCli([
      'merge',
      join(folder, 'r', 'results.json'),
      '--report-dir',
      join(folder, 'm'),
      '--quiet',
    ]);
    expect(merged.code, merged.stderr).toBe(quiet.code);
    expect(merged.stderr).toBe('');
    expect(merged.stdout).toMatch(/FAIL +checkout\.get\.shape/);
    expect(merged.stdout).not.toMatch(/^(pass|skip|seen) /m);
  });

  it('proxy logs no exchange but prints its verdict table', async () => {
    const proxy = await startListeningCli(['proxy', '--target', service.baseUrl, '--quiet', '--summary-interval', '1']);
    const bad = await setUpWithShortReturnUrl(proxy.url);
    expect(bad.status).toBe(400);
    const { code, stderr, stdout } = await proxy.stop();
    expect(code).toBe(1);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/\nFAIL +checkout\.return-url\.length/);
  });
});
