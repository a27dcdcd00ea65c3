import { describe, expect, it } from 'vitest';
import { exampleLines } from '../../src/cli/help-examples.js';
import { runCli } from '../helpers/cli.js';

// Help is read at a terminal and copied from: an example command is never cut in two, and the
// options users reach for are there under the names they type.

const COMMANDS = ['run', 'proxy', 'validate', 'replay', 'merge', 'report', 'serve', 'rules', 'openapi', 'ca'];

describe('--help', () => {
  it('writes every example command whole on one line, its description as a comment above it', async () => {
    for (const command of COMMANDS) {
      const help = await runCli([command, '--help']);
      expect(help.code, command).toBe(0);
      const examples = help.stdout.split('\nExamples:\n')[1]?.split('\n\n')[0];
      if (!examples) continue;
      // A command too long for the width goes on with backslash continuations, never cut elsewhere.
      for (const line of examples
        .replace(/ \\\n\s+/g, ' ')
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean))
        expect(line, `${command}: ${line}`).toMatch(/^(# |print-conformance\b)/);
    }
  });

  it('lays out an example at any width without cutting the command', () => {
    const command = 'print-conformance proxy --target https://test.example.com/v2/ -- npm test';
    const lines = exampleLines(command, "run a client's tests behind the proxy; exit 1 if a must rule broke", 40);
    const comments = lines.filter((line) => line.startsWith('# '));
    expect(
      lines
        .slice(comments.length)
        .join('\n')
        .replace(/ \\\n\s+/g, ' '),
    ).toBe(command);
    for (const line of comments) {
      expect(line).toMatch(/^# /);
      // yargs pads an example with two spaces each side.
      expect(line.length).toBeLessThanOrEqual(40 - 4);
    }
    expect(comments.join(' ').replace(/# /g, '')).toBe(
      "run a client's tests behind the proxy; exit 1 if a must rule broke",
    );
  });

  it('folds a command longer than the width between words, so that it still runs when pasted', () => {
    const command =
      'print-conformance proxy --target http://127.0.0.1:8080/v2/ --record-bodies --record session.ndjson -- npm test';
    const lines = exampleLines(command, 'record a session that can be replayed', 60);
    const folded = lines.filter((line) => !line.startsWith('# '));
    expect(folded.length).toBeGreaterThan(1);
    for (const line of folded) expect(line.length).toBeLessThanOrEqual(60 - 4);
    expect(folded.join('\n').replace(/ \\\n\s+/g, ' ')).toBe(command);
  });

  it('names the proxy options that turn its defaults off as they are typed', async () => {
    const help = await runCli(['proxy', '--help']);
    expect(help.stdout).toContain('--no-violations-header');
    expect(help.stdout).toContain('--no-rewrite-urls');
  });
});

describe('a wrong option value', () => {
  it('is refused in one line naming the choices and the one probably meant', async () => {
    const result = await runCli(['--format', 'jsno']);
    expect(result.stderr).toBe(
      'print-conformance: --format jsno is not one of json, xml, both (did you mean json?); see --help\n',
    );
    expect(result.code).toBe(2);
  });

  it('files positionals show as required, with no empty default beside it', async () => {
    for (const command of ['validate', 'replay', 'merge']) {
      const help = await runCli([command, '--help']);
      const files = help.stdout.split('\nPositionals:\n')[1]?.split('\n\n')[0];
      expect(files, command).toMatch(/\[required\]$/);
      expect(files, command).not.toContain('[default: []]');
    }
  });
});
