import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { serverErrorRecording } from '../helpers/server-error-recording.js';

// What a person sees: stdout holds the summary and nothing else (no line of vitest's), progress
// and reasons go to stderr, and colour comes only to a terminal or when FORCE_COLOR asks.

let folder: string;
let recording: string;
beforeAll(() => {
  ({ folder, recording } = serverErrorRecording('console'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the console', () => {
  it('run --quiet prints the summary line and where the reports went, and nothing else, anywhere', async () => {
    const result = await runCli(['--quiet', '--report-dir', join(folder, 'quiet')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toContain('\u001b[');
    const lines = result.stdout.split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^\d+ passed, 0 failed, 0 warnings, 0 untested, \d+ skipped, \d+ observed — .* in \d+\.\d s$/,
      ),
      expect.stringMatching(/^reports: .*results\.json, .*junit\.xml, .*allure-results\/$/),
      expect.stringMatching(/^HTML report: .*print-conformance report --report-dir /),
      '',
    ]);
    // The table stays for the default.
    const loud = await runCli(['--report-dir', join(folder, 'loud')]);
    expect(loud.stdout).toMatch(/^VERDICT +RULE +SEVERITY +EVIDENCE \/ REASON$/m);
    expect(loud.stdout).toMatch(/^pass +checkout\.echo /m);
    expect(loud.stdout).toContain('Coverage');
  });

  it('run --verbose gives a reason for every rule it skips, in its progress', async () => {
    const result = await runCli(['--verbose', '--report-dir', join(folder, 'progress')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('- upload.content-sniff: judged in traffic only (proxy, validate)\n');
    expect(result.stderr).toContain('- observe.large-upload: needs --upload-size\n');
    expect(result.stdout).not.toMatch(/vitest|JUNIT |Test Files/i);
  });

  it('colours the verdict words when FORCE_COLOR asks, and not in a pipe otherwise', async () => {
    const args = ['validate', recording, '--only', 'http.', '--report-dir', join(folder, 'colour')];
    const plain = await runCli(args);
    const coloured = await runCli(args, { env: { FORCE_COLOR: '1' } });
    const none = await runCli(args, { env: { NO_COLOR: '1' } });
    expect(plain.code).toBe(1);
    expect(plain.stdout).not.toContain('\u001b[');
    expect(none.stdout).not.toContain('\u001b[');
    expect(coloured.stdout).toContain('\u001b[31mFAIL     \u001b[39m http.no-server-error');
  });
});
