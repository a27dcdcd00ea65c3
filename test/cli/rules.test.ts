import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/contract/rules.js';
import { runCli } from '../helpers/cli.js';

describe('print-conformance rules', () => {
  it('--json lists every rule with its severity', async () => {
    const result = await runCli(['rules', '--json']);
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as { id: string; severity: string }[];
    expect(listed.map((rule) => [rule.id, rule.severity])).toEqual(RULES.map((rule) => [rule.id, rule.severity]));
  });

  it('prints a table with one line per rule', async () => {
    const result = await runCli(['rules']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(RULES.length + 1);
    expect(lines[1]).toMatch(/^checkout\.json\.casing\s+must\s+§2\s+/);
  });

  it('answers an unknown option with one line and exit 2', async () => {
    const result = await runCli(['rules', '--colour']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toBe('print-conformance: rules has no option --colour; see --help\n');
  });

  it('has --help and --version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('rules');
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
