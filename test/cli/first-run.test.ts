import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/contract/rules.js';
import { runCli } from '../helpers/cli.js';

// A first run is read at a glance: one line per group of probes (its deliberate refusals counted
// as such), each rule once in the table, and at the end where the reports went and how to open
// them. Every request and every verdict as it comes is a flag away (--verbose).

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-first-run-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('a first run', () => {
  it('tells each group of probes in a line, each rule once, and ends naming the reports and the report command', async () => {
    const result = await runCli([], { cwd: folder });
    expect(result.code, result.stderr).toBe(0);
    const progress = result.stderr.trim().split('\n');
    expect(progress.length).toBeLessThanOrEqual(8);
    expect(
      progress.slice(1).every((line) => /^[a-z [\]]+ +\d+ requests?(; \d+ refused, as the probes meant)?$/.test(line)),
    ).toBe(true);
    expect(result.stderr).not.toMatch(/[✓✗]/);
    for (const rule of RULES)
      expect(result.stdout.split('\n').filter((line) => line.split(/\s+/)[1] === rule.id)).toHaveLength(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines.length + progress.length).toBeLessThan(80);
    expect(lines.slice(-2)).toEqual([
      'reports: reports/results.json, reports/junit.xml, reports/allure-results/',
      'HTML report: npx print-conformance report',
    ]);
  });

  it('names the report folder it was given, in the report command too', async () => {
    const reports = join(folder, 'elsewhere');
    const result = await runCli(['--only', 'http.', '--quiet', '--report-dir', reports], { cwd: folder });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').slice(-2)).toEqual([
      'reports: elsewhere/results.json, elsewhere/junit.xml, elsewhere/allure-results/',
      'HTML report: npx print-conformance report --report-dir elsewhere',
    ]);
  });

  it('--verbose shows every request, its deliberate refusals and observations marked, and every verdict as it comes', async () => {
    const result = await runCli(['--verbose', '--report-dir', join(folder, 'verbose')], { cwd: folder });
    expect(result.code, result.stderr).toBe(0);
    const requests = result.stderr.split('\n').filter((line) => / → \d{3}/.test(line));
    expect(requests.length).toBeGreaterThan(40);
    const refused = requests.filter((line) => / → 4\d\d/.test(line));
    expect(refused.length).toBeGreaterThan(0);
    // A refusal is one the suite asked for, or an answer it only observes (what HEAD or DELETE gets).
    for (const line of refused) expect(line).toMatch(/ \((refused, as meant|observed)\)$/);
    expect(refused.some((line) => / \(refused, as meant\)$/.test(line))).toBe(true);
    expect(result.stderr).toMatch(/^✓ checkout\.xml\.tax-nil$/m);
    expect(result.stdout).toContain('Service profile (where the description is silent):');
  });
});
