import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// A user and password in the service's URL would be written into recordings, logs, reports and
// the proxy's error answers: the commands refuse them at start, without repeating them.

const PASSWORD = 'u5er-pa55-Hq6';
const reports = mkdtempSync(join(tmpdir(), 'print-conformance-url-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

describe('URLs with a user and password', () => {
  it.each([
    ['proxy', ['proxy', '--target', `https://alice:${PASSWORD}@127.0.0.1:9/v2/`], /--target must not hold a user/],
    ['run', ['--base-url', `https://alice:${PASSWORD}@127.0.0.1:9/v2/`], /--base-url must not hold a user/],
    ['run, from the environment', [], /--base-url must not hold a user/],
    ['run, a URL that does not parse', ['--base-url', `https://alice:${PASSWORD}@`], /--base-url is not an absolute/],
  ])('are refused by %s in one line, exit 2, never repeated', async (_, args, said) => {
    const result = await runCli(args[0] === 'proxy' ? args : ['run', ...args, '--report-dir', reports], {
      env: { PRINT_CONFORMANCE_BASE_URL: `http://alice:${PASSWORD}@127.0.0.1:9/v2/` },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(said);
    expect(`${result.stdout}${result.stderr}`).not.toContain(PASSWORD);
    expect(`${result.stdout}${result.stderr}`).not.toContain('alice');
  });
});
