import { pointerSegments } from '../validate/schema-messages.js';
import { locateJsonMember, locateXmlElement, type Span } from './locate-member.js';

// A few lines of a body, centred on the member a failure names, so that a person sees the
// offending value in place rather than the first 160 characters of the answer. Pure: the text,
// its format and the violation's path in, a short string out.

export interface ExcerptOptions {
  /** About how many characters the excerpt holds (default 200). */
  maxChars?: number;
  /** At most this many lines before and after the member's own lines (default 2). */
  contextLines?: number;
}

const CUT = '…';

/** Moves an index off the second half of a surrogate pair, so no character is cut in two. */
function whole(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff && index > 0 ? index - 1 : index;
}

/** Where the line holding `index` starts and ends (without its line break). */
function lineStart(text: string, index: number): number {
  return text.lastIndexOf('\n', index - 1) + 1;
}
function lineEnd(text: string, index: number): number {
  const at = text.indexOf('\n', index);
  return at < 0 ? text.length : at;
}

/** Removes the indentation all the lines share, and the carriage returns of CRLF bodies. */
function dedent(lines: string[]): string[] {
  const clean = lines.map((line) => line.replace(/\r$/, ''));
  let common = Number.POSITIVE_INFINITY;
  for (const line of clean) {
    if (line.trim() === '') continue;
    common = Math.min(common, line.length - line.trimStart().length);
  }
  return Number.isFinite(common) && common > 0 ? clean.map((line) => line.slice(common)) : clean;
}

/** Whole lines around the span, or undefined when its own lines are too long for that. */
function byLines(text: string, span: Span, maxChars: number, contextLines: number): string | undefined {
  let from = lineStart(text, span.start);
  let to = lineEnd(text, Math.max(span.start, span.end - 1));
  // A member too long to show whole (a large object, a parent of a missing member) is shown by
  // the lines around its start.
  if (to - from > maxChars) to = lineEnd(text, span.start);
  if (to - from > maxChars) return undefined;
  // Lines are added on either side in turn while the budget lasts.
  for (let added = 0; added < contextLines; added += 1) {
    let grew = false;
    if (from > 0) {
      const before = lineStart(text, from - 1);
      if (to - before <= maxChars) {
        from = before;
        grew = true;
      }
    }
    if (to < text.length) {
      const after = lineEnd(text, to + 1);
      if (after - from <= maxChars) {
        to = after;
        grew = true;
      }
    }
    if (!grew) break;
  }
  const lines = dedent(text.slice(from, to).split('\n'));
  if (from > 0) lines.unshift(CUT);
  if (to < text.length && text.slice(to).trim() !== '') lines.push(CUT);
  return lines.join('\n');
}

/** About maxChars characters centred on the span (from its start when it is longer). */
function byCharacters(text: string, span: Span, maxChars: number): string {
  const length = span.end - span.start;
  let from = length >= maxChars ? span.start : Math.floor(span.start - (maxChars - length) / 2);
  from = Math.max(0, Math.min(from, text.length - maxChars));
  from = whole(text, from);
  const to = whole(text, Math.min(text.length, from + maxChars));
  const body = text.slice(from, to).trim();
  return `${from > 0 ? CUT : ''}${body}${to < text.length ? CUT : ''}`;
}

/**
 * A short excerpt of the body centred on the member at `path` (a JSON pointer; for XML the
 * elements under the root, JSON or PascalCase names alike). A member the body lacks is shown by
 * its parent; without a path, or when the body cannot be read, the excerpt is its start.
 */
export function excerpt(
  text: string,
  format: 'json' | 'xml',
  path: string | undefined,
  options: ExcerptOptions = {},
): string {
  const maxChars = options.maxChars ?? 200;
  const contextLines = options.contextLines ?? 2;
  const segments = path === undefined ? undefined : pointerSegments(path);
  let span: Span | undefined;
  if (segments !== undefined && segments.length > 0) {
    span = format === 'json' ? locateJsonMember(text, segments) : locateXmlElement(text, segments);
  }
  span ??= { start: 0, end: 0 };
  const shown =
    (text.includes('\n') && byLines(text, span, maxChars, contextLines)) || byCharacters(text, span, maxChars);
  return printable(shown);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const UNPRINTABLE = /[\u0000-\u0008\u000B-\u001F\u007F\uFFFE\uFFFF]/g;

/** Line breaks as "\n"; control characters (which XML reports cannot carry either) as "�". */
function printable(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNPRINTABLE, '\uFFFD');
}
