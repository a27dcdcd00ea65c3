// A shell command folded onto lines of a given width with backslash continuations, broken only
// between words (never inside a quoted one), so that the folded text still runs when pasted.

/** The command's words, as a POSIX shell splits them at unquoted blanks. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index] as string;
    if (quote) {
      word += char;
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"') word += command[++index] ?? '';
      continue;
    }
    if (char === ' ') {
      if (word) words.push(word);
      word = '';
      continue;
    }
    word += char;
    if (char === "'" || char === '"') quote = char;
    else if (char === '\\') word += command[++index] ?? '';
  }
  if (word) words.push(word);
  return words;
}

/** The command on lines of at most `width` characters where its words allow, continued with " \\". */
export function foldCommand(command: string, width: number, indent = '  '): string {
  if (command.length <= width) return command;
  const lines: string[] = [];
  let line = '';
  for (const word of shellWords(command)) {
    const room = width - 2 - (lines.length === 0 ? 0 : indent.length);
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((text, index) => (index === 0 ? text : `${indent}${text}`)).join(' \\\n');
}
