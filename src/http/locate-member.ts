import { xmlNameOf } from '../contract/schemas.js';

// Where in a body's text a member is written, found by scanning the text itself: a parsed value
// or element tree has no offsets. The scans are lenient (a body a report shows may be broken or
// cut short): whatever cannot be read ends the search with what was found so far.

/** A stretch of the text: start inclusive, end exclusive. */
export interface Span {
  start: number;
  end: number;
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i += 1;
  }
  return i;
}

/** The index after a JSON string starting at `at`, or -1 when it does not end. */
function skipString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (c === '\\') i += 1;
    else if (c === '"') return i + 1;
  }
  return -1;
}

/** The index after the JSON value starting at `at`, or -1 when it does not end. Not recursive. */
function skipValue(text: string, at: number): number {
  const first = text.charAt(at);
  if (first === '"') return skipString(text, at);
  if (first === '{' || first === '[') {
    let depth = 0;
    for (let i = at; i < text.length; i += 1) {
      const c = text.charAt(i);
      if (c === '"') {
        const after = skipString(text, i);
        if (after < 0) return -1;
        i = after - 1;
      } else if (c === '{' || c === '[') depth += 1;
      else if (c === '}' || c === ']') {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = at;
  while (i < text.length && !/[\s,}\]]/.test(text.charAt(i))) i += 1;
  return i > at ? i : -1;
}

function keyAt(text: string, start: number, end: number): string | undefined {
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return undefined;
  }
}

/** The member (name and value) or array item at `segment` of the JSON value at `at`. */
function childOf(text: string, at: number, segment: string): { span: Span; value: number } | undefined {
  const open = text.charAt(at);
  let found: { span: Span; value: number } | undefined;
  let i = skipSpace(text, at + 1);
  if (open === '{') {
    while (i < text.length && text.charAt(i) === '"') {
      const keyEnd = skipString(text, i);
      if (keyEnd < 0) break;
      const colon = skipSpace(text, keyEnd);
      if (text.charAt(colon) !== ':') break;
      const value = skipSpace(text, colon + 1);
      const valueEnd = skipValue(text, value);
      if (valueEnd < 0) break;
      // The last of repeated names is the one JSON.parse keeps, so the one the rules judged.
      if (keyAt(text, i, keyEnd) === segment) found = { span: { start: i, end: valueEnd }, value };
      i = skipSpace(text, valueEnd);
      if (text.charAt(i) === ',') i = skipSpace(text, i + 1);
    }
    return found;
  }
  if (open === '[' && /^\d+$/.test(segment)) {
    const wanted = Number(segment);
    for (let index = 0; i < text.length && text.charAt(i) !== ']'; index += 1) {
      const valueEnd = skipValue(text, i);
      if (valueEnd < 0) return undefined;
      if (index === wanted) return { span: { start: i, end: valueEnd }, value: i };
      i = skipSpace(text, valueEnd);
      if (text.charAt(i) === ',') i = skipSpace(text, i + 1);
    }
  }
  return undefined;
}

/**
 * The span of the member at the path (its name and value), or of the deepest member on the way
 * that is there: a missing member is shown by its parent. Undefined when the text holds no value.
 */
export function locateJsonMember(text: string, segments: readonly string[]): Span | undefined {
  const start = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (start >= text.length) return undefined;
  const end = skipValue(text, start);
  let span: Span = { start, end: end < 0 ? text.length : end };
  let at = start;
  for (const segment of segments) {
    const child = childOf(text, at, segment);
    if (!child) break;
    span = child.span;
    at = child.value;
  }
  return span;
}

interface Tag {
  kind: 'open' | 'close' | 'empty';
  /** Local name, without a prefix. */
  name: string;
  start: number;
  end: number;
}

/** Start and end tags from `from` on; comments, CDATA, processing instructions and DTDs skipped. */
function* tags(text: string, from: number): Generator<Tag> {
  let i = from;
  for (;;) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return;
    const skipTo = (marker: string) => {
      const at = text.indexOf(marker, lt + 2);
      return at < 0 ? -1 : at + marker.length;
    };
    let skipped = -2;
    if (text.startsWith('<!--', lt)) skipped = skipTo('-->');
    else if (text.startsWith('<![CDATA[', lt)) skipped = skipTo(']]>');
    else if (text.startsWith('<?', lt)) skipped = skipTo('?>');
    else if (text.startsWith('<!', lt)) {
      const close = text.indexOf('>', lt);
      const subset = text.indexOf('[', lt);
      skipped = subset >= 0 && subset < close ? skipTo(']>') : close < 0 ? -1 : close + 1;
    }
    if (skipped === -1) return;
    if (skipped >= 0) {
      i = skipped;
      continue;
    }
    // The tag ends at the first ">" outside a quoted attribute value.
    let j = lt + 1;
    let quote = '';
    for (; j < text.length; j += 1) {
      const c = text.charAt(j);
      if (quote) {
        if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '>') break;
    }
    if (j >= text.length) return;
    const closing = text.charAt(lt + 1) === '/';
    const qualified = /^[^\s/>]+/.exec(text.slice(lt + (closing ? 2 : 1), j))?.[0] ?? '';
    const name = qualified.slice(qualified.indexOf(':') + 1);
    const kind = closing ? 'close' : text.charAt(j - 1) === '/' ? 'empty' : 'open';
    yield { kind, name, start: lt, end: j + 1 };
    i = j + 1;
  }
}

/** The element's whole span, from its start tag to the end of its end tag (or of the text). */
function elementSpan(text: string, tag: Tag): Span {
  if (tag.kind === 'empty') return { start: tag.start, end: tag.end };
  let depth = 0;
  for (const next of tags(text, tag.end)) {
    if (next.kind === 'open') depth += 1;
    else if (next.kind === 'close') {
      if (depth === 0) return { start: tag.start, end: next.end };
      depth -= 1;
    }
  }
  return { start: tag.start, end: text.length };
}

/** The `index`th child element of `parent` named `name` (as written, or PascalCase of it). */
function childElement(text: string, parent: Tag, name: string, index: number): Tag | undefined {
  if (parent.kind === 'empty') return undefined;
  const pascal = xmlNameOf(name);
  let depth = 0;
  let seen = 0;
  for (const tag of tags(text, parent.end)) {
    if (tag.kind === 'close') {
      if (depth === 0) return undefined;
      depth -= 1;
      continue;
    }
    if (depth === 0 && (tag.name === name || tag.name === pascal)) {
      if (seen === index) return tag;
      seen += 1;
    }
    if (tag.kind === 'open') depth += 1;
  }
  return undefined;
}

/**
 * The span of the element at the path under the root (a number after a name picks among repeated
 * elements of that name), or of the deepest element on the way that is there.
 */
export function locateXmlElement(text: string, segments: readonly string[]): Span | undefined {
  const root = tags(text, 0).next();
  if (root.done || root.value.kind === 'close') return undefined;
  let here = root.value;
  for (let k = 0; k < segments.length; k += 1) {
    const name = segments[k] as string;
    const next = segments[k + 1];
    const counted = next !== undefined && /^\d+$/.test(next);
    const index = counted ? Number(next) : 0;
    if (counted) k += 1;
    const child = childElement(text, here, name, index);
    if (!child) break;
    here = child;
  }
  return elementSpan(text, here);
}
