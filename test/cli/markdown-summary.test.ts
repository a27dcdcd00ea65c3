import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { serverErrorRecording } from '../helpers/server-error-recording.js';

// --summary-md writes the Markdown summary; inside a GitHub Actions job it is appended to the job
// summary as well, after what the job's earlier steps wrote there.

let folder: string;
let recording: string;
beforeAll(() => {
  ({ folder, recording } = serverErrorRecording('markdown'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('validate --summary-md and $GITHUB_STEP_SUMMARY', () => {
  it('write the same Markdown as the exit code tells, the job summary appended to', async () => {
    const summary = join(folder, 'summary.md');
    const job = join(folder, 'job-summary.md');
    writeFileSync(job, '## earlier step\n');
    const result = await runCli(
      ['validate', recording, '--only', 'http.', '--report-dir', join(folder, 'r'), '--summary-md', summary],
      { env: { GITHUB_STEP_SUMMARY: job } },
    );
    expect(result.code).toBe(1);
    const markdown = readFileSync(summary, 'utf8');
    expect(markdown).toMatch(/^### print-conformance: ❌ 1 rule fails the run\n/);
    expect(markdown).toContain('| `http.no-server-error` | must | ❌ failed |');
    expect(readFileSync(job, 'utf8')).toBe(`## earlier step\n${markdown}\n`);
  });

  it('come from run too', async () => {
    const summary = join(folder, 'run-summary.md');
    const result = await runCli(
      ['--quiet', '--only', 'http.', '--report-dir', join(folder, 'run'), '--summary-md', summary],
      {
        env: { GITHUB_STEP_SUMMARY: undefined },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(summary, 'utf8')).toMatch(
      /^### print-conformance: ✅ .*\n\n1 passed, 0 failed, 0 warnings, 0 untested, \d+ skipped/,
    );
  });
});
