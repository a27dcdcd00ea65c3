// Text from traffic or a recording, printed at a terminal: a service or a recording may hold
// control characters (ESC, BEL, NUL, CR…) that a terminal acts on (a new window title, a cleared
// screen, a line written over), and bidirectional controls that show text otherwise than it is.
// They are printed as visible escapes instead ("\x1b"); line breaks and tabs stay.

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

// A CI runner reads a line of a job's output that starts with "::" (after white space) as a
// workflow command (::error, ::add-mask::, ::stop-commands::), and "##[" as the older form, which
// may stand anywhere in the line. Text from traffic or from a results.json never makes one: the
// colon or bracket that would is written as a visible escape.
const WORKFLOW_COMMAND = /^([ \t]*):(?=:)|#(?=#\[)/gm;

const commandEscape = (match: string, indent: string | undefined) => (match === '#' ? '\\x23' : `${indent ?? ''}\\x3a`);

/**
 * The text with every character a terminal would act on written as a visible escape, and no line
 * of it read as a workflow command.
 */
export function terminalText(text: string): string {
  UNPRINTABLE.lastIndex = 0;
  const printable = UNPRINTABLE.test(text) ? text.replace(UNPRINTABLE, visible) : text;
  WORKFLOW_COMMAND.lastIndex = 0;
  return WORKFLOW_COMMAND.test(printable) ? printable.replace(WORKFLOW_COMMAND, commandEscape) : printable;
}

/** Text from traffic that belongs on one line (a URL, a method, a reason): line breaks are escaped too. */
export function terminalLine(text: string): string {
  return terminalText(text.replace(/[\n\t]/g, (char) => (char === '\n' ? '\\x0a' : '\\x09')));
}

const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: characters XML 1.0 cannot carry are what is replaced
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text XML 1.0 can carry: characters it cannot, not even as references, as visible escapes. */
export function xmlCarriable(text: string): string {
  NOT_XML.lastIndex = 0;
  return NOT_XML.test(text)
    ? text.replace(NOT_XML, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
}
