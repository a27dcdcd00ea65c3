import type { Argv } from 'yargs';
import { foldCommand } from '../report/fold-command.js';

// yargs lays an example out in two columns, the command in the left one, and wraps a long command
// in the middle ("--target" on one line, its URL on the next): copied from a terminal, it no longer
// runs. Each example is written instead as its description, a shell comment, over the command whole,
// and a command longer than the width is folded between words with backslash continuations.

/** The description as comment lines that fit `width`, then the command on lines of its own. */
export function exampleLines(command: string, description: string, width: number): string[] {
  // yargs pads an example with two spaces each side; "# " starts every comment line.
  const room = Math.max(20, width - 6);
  const lines: string[] = [];
  let line = '';
  for (const word of description.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > room) {
      lines.push(`# ${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(`# ${line}`);
  // Measured as printed: yargs writes the tool's name for $0.
  const printed = command.replaceAll('$0', 'print-conformance');
  return [...lines, ...foldCommand(printed, room, '  ').split('\n')];
}

/** Makes every `.example(command, description)` given to this instance and its commands lay out so. */
export function examplesOnTheirOwnLines<T>(cli: Argv<T>, width: number): void {
  const example = cli.example.bind(cli) as (command: unknown, description?: unknown) => Argv<T>;
  const laidOut = (command: unknown, description?: unknown) => {
    if (typeof command !== 'string' || typeof description !== 'string' || description === '')
      return example(command, description);
    for (const line of exampleLines(command, description, width)) example(line, '');
    return cli;
  };
  Object.assign(cli, { example: laidOut });
}
