// The pieces every masking pass shares: cuts (a range of the text and what replaces it), quotes
// and escapes read where they stand, and the text rebuilt with its cuts made.

import { SECRET_MASK } from '../validate/exchange.js';

export const REDACTED = SECRET_MASK;
export const QUOTED_REDACTED = `"${REDACTED}"`;

export interface Cut {
  start: number;
  end: number;
  text: string;
}

/** Cut lists are made on the first cut: most texts need none. */
export function withCut(cuts: Cut[] | undefined, cut: Cut): Cut[] {
  if (!cuts) return [cut];
  cuts.push(cut);
  return cuts;
}

export const CODE = (char: string) => char.charCodeAt(0);
export const BACKSLASH = CODE('\\');
export const DOUBLE_QUOTE = CODE('"');
export const SINGLE_QUOTE = CODE("'");

export const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;
export const isBlank = (code: number) => code === 32 || code === 9;

/** Whether the character at `at` is preceded by an odd number of backslashes (escaped). */
export function escaped(text: string, at: number): boolean {
  let count = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === BACKSLASH; i -= 1) count += 1;
  return count % 2 === 1;
}

/** Where the quoted string opening at `open` closes, or the text's length when it never does. */
export function closingQuote(text: string, open: number): number {
  const quote = text[open] as string;
  for (let at = text.indexOf(quote, open + 1); at >= 0; at = text.indexOf(quote, at + 1))
    if (!escaped(text, at)) return at;
  return text.length;
}

/** The end (exclusive) of the object or array opening at `open`; strings inside are skipped. */
export function balancedEnd(text: string, open: number): number {
  let depth = 0;
  for (let at = open; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === DOUBLE_QUOTE) at = closingQuote(text, at);
    else if (code === 123 || code === 91) depth += 1;
    else if (code === 125 || code === 93) {
      depth -= 1;
      if (depth === 0) return at + 1;
    }
  }
  return text.length;
}

/** The text with the cuts made; overlapping cuts are joined into the first. */
export function applyCuts(text: string, cuts: Cut[] | undefined): string {
  if (!cuts) return text;
  cuts.sort((a, b) => a.start - b.start);
  let out = '';
  let done = 0;
  let open: Cut | undefined;
  for (const cut of cuts) {
    if (open && cut.start < open.end) {
      open.end = Math.max(open.end, cut.end);
      continue;
    }
    if (open) {
      out += open.text;
      done = open.end;
    }
    out += text.slice(done, cut.start);
    done = cut.start;
    open = { ...cut };
  }
  if (open) {
    out += open.text;
    done = open.end;
  }
  return out + text.slice(done);
}
