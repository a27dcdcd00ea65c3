import { describe, expect, it } from 'vitest';
import { exampleLines } from '../../src/cli/help-examples.js';
import { runCli } from '../helpers/cli.js';

// Help is read at a terminal and copied from: an example command is never cut in two, and the
// options users reach for are there under the names they type.

const COMMANDS = ['run', 'proxy', 'validate', 'merge', 'report', 'serve', 'rules', 'openapi'];

describe('--help', () => {
  it('writes every example command whole on one line, its description as a comment above it', async () => {
    for (const command of COMMANDS) {
      const help = await runCli([command, '--help']);
      expect(help.code, command).toBe(0);
      const examples = help.stdout.split('\nExamples:\n')[1]?.split('\n\n')[0];
      if (!examples) continue;
      for (const line of examples
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean))
        expect(line, `${command}: ${line}`).toMatch(/^(# |print-conformance\b)/);
    }
  });

  it('lays out an example at any width without cutting the command', () => {
    const command = 'print-conformance proxy --target https://test.example.com/v2/ -- npm test';
    const lines = exampleLines(command, "run a client's tests behind the proxy; exit 1 if a must rule broke", 40);
    expect(lines.at(-1)).toBe(command);
    for (const line of lines.slice(0, -1)) {
      expect(line).toMatch(/^# /);
      // yargs pads an example with two spaces each side.
      expect(line.length).toBeLessThanOrEqual(40 - 4);
    }
    expect(lines.slice(0, -1).join(' ').replace(/# /g, '')).toBe(
      "run a client's tests behind the proxy; exit 1 if a must rule broke",
    );
  });

  it('names the proxy options that turn its defaults off as they are typed', async () => {
    const help = await runCli(['proxy', '--help']);
    expect(help.stdout).toContain('--no-violations-header');
    expect(help.stdout).toContain('--no-rewrite-urls');
  });
});
