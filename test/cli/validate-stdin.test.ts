import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type CliResult, runCli } from '../helpers/cli.js';

// `validate -` judges a recording piped in, NDJSON or HAR alike, and a HAR entry that does not
// describe an exchange is skipped with a warning instead of ending the run.

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-stdin-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs the built CLI with `input` on its standard input. */
async function runWithInput(args: string[], input: string): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const printed = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => {
    printed.stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    printed.stderr += chunk;
  });
  child.stdin.end(input);
  const [code] = await once(child, 'close');
  return { code, ...printed };
}

const failing = {
  request: { method: 'GET', url: 'http://s.test/v2/checkout/c', headers: { accept: 'application/json' } },
  response: { status: 500, headers: { 'content-type': 'application/json' }, body: { text: '{}', size: 2 } },
};

const pairs = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));
const harEntry = (exchange: typeof failing) => ({
  request: { ...exchange.request, headers: pairs(exchange.request.headers) },
  response: {
    status: exchange.response.status,
    headers: pairs(exchange.response.headers),
    content: { size: 2, text: exchange.response.body.text },
  },
});
const har = (entries: unknown[]) => JSON.stringify({ log: { version: '1.2', entries } }, null, 2);

describe('validate -', () => {
  it('judges an NDJSON recording piped in, one led by a byte order mark too', async () => {
    const result = await runWithInput(
      ['validate', '-', '--report-dir', join(folder, 'r-ndjson')],
      `\uFEFF${JSON.stringify(failing)}\n\n${JSON.stringify(failing)}\n`,
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^2 exchanges read$/m);
    expect(result.stdout).toMatch(/FAIL\s+http\.no-server-error/);
  });

  it('judges a HAR document piped in, and keeps the whole entries of one cut off', async () => {
    const text = har([harEntry(failing), harEntry(failing)]);
    // Led by a byte order mark and blanks, as some tools write it.
    const whole = await runWithInput(['validate', '-', '--report-dir', join(folder, 'r-har')], `\uFEFF  ${text}`);
    expect(whole.code, whole.stderr).toBe(1);
    expect(whole.stderr).toContain('2 exchanges read');
    const cut = await runWithInput(
      ['validate', '-', '--report-dir', join(folder, 'r-cut')],
      text.slice(0, text.lastIndexOf('"response"')),
    );
    expect(cut.code, cut.stderr).toBe(1);
    expect(cut.stderr).toContain('its first 1 entries were read');
    expect(cut.stderr).toContain('1 exchanges read');
  });

  it('says in one line, exit 2, that nothing came in', async () => {
    const result = await runWithInput(['validate', '-', '--report-dir', join(folder, 'r-empty')], '');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^print-conformance: no exchange of the interface in \S+ \(it holds no exchange at all\)\n$/,
    );
  });
});

describe('validate over a HAR file with odd entries', () => {
  it('skips an entry without request.url with a warning and judges the others', async () => {
    const noUrl = harEntry(failing) as { request: { url?: string } };
    delete noUrl.request.url;
    const file = join(folder, 'odd.har');
    writeFileSync(file, har([noUrl, harEntry(failing), { request: { method: 'GET', url: 7 } }]));
    const result = await runCli(['validate', file, '--report-dir', join(folder, 'r-odd')]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('HAR entry 1 skipped: request.url is not a string');
    expect(result.stderr).toContain('HAR entry 3 skipped: request.url is not a string');
    expect(result.stderr).toContain('1 exchanges read, 2 lines skipped');
    expect(result.stdout).toMatch(/FAIL\s+http\.no-server-error/);
  });
});
