import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalLine, terminalText } from '../../src/report/terminal-text.js';
import { runCli } from '../helpers/cli.js';

// A CI runner obeys a line of a job's output that starts with "::" (after white space) or holds
// "##[": text from traffic or from a results.json never makes such a line, nor reaches the
// terminal with a raw ESC or BEL, whatever the face that prints it.

/** A line a GitHub runner would read as a workflow command. */
const COMMAND_LINE = /^[ \t]*::|##\[/m;
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be printed raw
const RAW_CONTROL = /[\u0007\u001b]/;

const xml = [
  '<?xml version="1.0"?>',
  '<Checkout>',
  '::error file=x::pwned',
  '  ::stop-commands::abc',
  '##[error]pwned',
  '<Amount>one</Amount>',
  '</Checkout>',
].join('\n');

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-workflow-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function expectInert(output: string) {
  expect(output).not.toMatch(COMMAND_LINE);
  expect(RAW_CONTROL.test(output)).toBe(false);
}

describe('workflow commands from traffic', () => {
  it('are escaped by the terminal text, at any line and after any indent', () => {
    expect(terminalText('a\n  ::error::x\n##[warning]y')).toBe('a\n  \\x3a:error::x\n\\x23#[warning]y');
    expect(terminalLine('GET /x\n::error::x')).toBe('GET /x\\x0a::error::x');
    expect(terminalText('time 10::20')).toBe('time 10::20');
  });

  it('validate prints none from a recorded body or a URL with a line break', async () => {
    const recording = join(folder, 'bodies.ndjson');
    const exchange = (url: string, status: number) => ({
      request: { method: 'GET', url, headers: { accept: 'application/xml' } },
      response: { status, headers: { 'content-type': 'application/xml' }, body: { text: xml, size: xml.length } },
    });
    writeFileSync(
      recording,
      [
        exchange('http://s.test/v2/checkout/a', 200),
        exchange('http://s.test/v2/checkout/b\n::error::from-url\u001b]0;t\u0007', 500),
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const result = await runCli(['validate', recording, '--report-dir', join(folder, 'r-validate')]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('pwned');
    expectInert(result.stdout);
    expectInert(result.stderr);
  });

  it("replay's not-sent lines and merge's last line print none", async () => {
    const recording = join(folder, 'unsent.ndjson');
    const url = 'http://s.test/v2/checkout/c\n::error::from-replay\u001b]0;t\u0007';
    writeFileSync(
      recording,
      `${JSON.stringify({
        request: { method: 'POST', url, headers: { 'content-type': 'application/pdf', 'content-length': '9' } },
        response: { status: 200, headers: {} },
      })}\n`,
    );
    const replayed = await runCli([
      'replay',
      recording,
      '--target',
      'http://127.0.0.1:9/v2/',
      '--recorded-base',
      'http://s.test/v2/',
      '--report-dir',
      join(folder, 'r-replay'),
    ]);
    expect(replayed.code).toBe(2);
    expect(replayed.stdout).toContain('from-replay');
    expectInert(replayed.stdout);
    expectInert(replayed.stderr);

    await runCli(['validate', join(folder, 'bodies.ndjson'), '--report-dir', join(folder, 'r-shard')]);
    const results = JSON.parse(readFileSync(join(folder, 'r-shard', 'results.json'), 'utf8'));
    results.target = 'x\n::error::from-results\u001b]0;t\u0007';
    writeFileSync(join(folder, 'planted.json'), JSON.stringify(results));
    const merged = await runCli(['merge', join(folder, 'planted.json'), '--report-dir', join(folder, 'r-merged')]);
    expect(merged.code, merged.stderr).toBe(1);
    expect(merged.stdout).toContain('from-results');
    expectInert(merged.stdout);
    expectInert(merged.stderr);
  });
});
