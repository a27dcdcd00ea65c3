// Colour for a person at a terminal, never for a file, a pipe or a CI log that did not ask for it.
// FORCE_COLOR (0 or false: none) decides when set, as in Node itself; else NO_COLOR
// (https://no-color.org) turns it off; else a TTY that is not TERM=dumb gets colour.

export type Style = 'red' | 'green' | 'yellow' | 'cyan' | 'dim' | 'bold';

const CODES: Record<Style, [number, number]> = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  dim: [2, 22],
  bold: [1, 22],
};

export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.toLowerCase());
  if (env.NO_COLOR) return false;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

export type Paint = (style: Style, text: string) => string;

export function painter(enabled: boolean): Paint {
  if (!enabled) return (_style, text) => text;
  return (style, text) => {
    const [open, close] = CODES[style];
    return `\u001b[${open}m${text}\u001b[${close}m`;
  };
}
