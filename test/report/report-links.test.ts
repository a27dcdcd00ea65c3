import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { serverErrorRecording } from '../helpers/server-error-recording.js';

// Allure results and the HTML report are written as every other report: a link planted where a
// file or a folder goes is replaced, never followed, and what it led to stays as it was.

let folder: string;
let recording: string;
beforeAll(() => {
  ({ folder, recording } = serverErrorRecording('report-links'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('report places that are links', () => {
  it('replaces a linked allure-results folder: the folder it led to keeps its categories.json', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'print-conformance-elsewhere-'));
    try {
      writeFileSync(join(elsewhere, 'categories.json'), '[{"name":"mine"}]');
      const reports = join(folder, 'linked');
      mkdirSync(reports);
      symlinkSync(elsewhere, join(reports, 'allure-results'));
      const result = await runCli(['validate', recording, '--report-dir', reports]);
      expect(result.code, result.stderr).toBe(1);
      expect(readFileSync(join(elsewhere, 'categories.json'), 'utf8')).toBe('[{"name":"mine"}]');
      expect(lstatSync(join(reports, 'allure-results')).isDirectory()).toBe(true);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('report writes no file through a link planted in its output folder', async () => {
    const reports = join(folder, 'planted');
    const result = await runCli(['validate', recording, '--report-dir', reports]);
    expect(result.code, result.stderr).toBe(1);
    const victim = join(folder, 'victim.txt');
    writeFileSync(victim, 'untouched');
    const output = join(reports, 'allure-report');
    mkdirSync(output, { recursive: true });
    for (const name of ['index.html', 'summary.json', 'test-results.json']) symlinkSync(victim, join(output, name));
    const report = await runCli(['report', '--report-dir', reports], { timeoutMs: 120_000 });
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    for (const name of ['index.html', 'summary.json', 'test-results.json'])
      expect(lstatSync(join(output, name)).isFile(), name).toBe(true);
  }, 150_000);
});
