// A body laid out for reading: JSON and XML indented, one member or element a line, without
// reading a single value: every character of the body is kept as it was sent (22.50 stays 22.50,
// an escape stays an escape, a repeated name stays repeated), only whitespace between the tokens
// is added or taken away. A body that does not read as its format is laid out as far as it reads
// and the rest left as it came. What the rules point at is then found in the laid-out text.

const INDENT = '  ';

/** The index after the JSON string that starts at `at` (its end, when it does not end). */
function afterString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 1;
    else if (c === 0x22) return i + 1;
  }
  return text.length;
}

export function prettyJson(text: string): string {
  let out = '';
  let depth = 0;
  const newline = () => `\n${INDENT.repeat(depth)}`;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (c === '"') {
      const end = afterString(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (c === '{' || c === '[') {
      // An empty object or array stays on its line.
      let next = i + 1;
      while (/\s/.test(text.charAt(next))) next += 1;
      if (text.charAt(next) === (c === '{' ? '}' : ']')) {
        out += c + text.charAt(next);
        i = next;
        continue;
      }
      depth += 1;
      out += c + newline();
    } else if (c === '}' || c === ']') {
      depth = Math.max(0, depth - 1);
      out += newline() + c;
    } else if (c === ',') out += c + newline();
    else if (c === ':') out += ': ';
    else if (!/\s/.test(c)) out += c;
  }
  return out;
}

interface XmlToken {
  kind: 'open' | 'close' | 'empty' | 'other' | 'text';
  text: string;
}

/** Tags, text, comments, CDATA, declarations: the body cut where markup starts and ends. */
function xmlTokens(text: string): XmlToken[] | undefined {
  const tokens: XmlToken[] = [];
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt < 0) {
      tokens.push({ kind: 'text', text: text.slice(i) });
      break;
    }
    if (lt > i) tokens.push({ kind: 'text', text: text.slice(i, lt) });
    const closer = text.startsWith('<!--', lt)
      ? '-->'
      : text.startsWith('<![CDATA[', lt)
        ? ']]>'
        : text.startsWith('<?', lt)
          ? '?>'
          : '>';
    const at = closer === '>' ? tagEnd(text, lt) : text.indexOf(closer, lt + 2);
    if (at < 0) return undefined;
    const end = closer === '>' ? at + 1 : at + closer.length;
    const markup = text.slice(lt, end);
    const kind =
      closer !== '>' || markup.startsWith('<!')
        ? markup.startsWith('<![CDATA[')
          ? 'text'
          : 'other'
        : markup.startsWith('</')
          ? 'close'
          : markup.endsWith('/>')
            ? 'empty'
            : 'open';
    tokens.push({ kind, text: markup });
    i = end;
  }
  return tokens;
}

/** The ">" that ends the tag at `lt`, past quoted attribute values; -1 when it does not end. */
function tagEnd(text: string, lt: number): number {
  let quote = '';
  for (let i = lt + 1; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
  }
  return -1;
}

export function prettyXml(text: string): string {
  const tokens = xmlTokens(text);
  if (!tokens) return text;
  const lines: string[] = [];
  let depth = 0;
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] as XmlToken;
    if (token.kind === 'text') {
      // Whitespace between elements is layout; any other text is content, kept as it is.
      if (token.text.trim() === '') continue;
      lines.push(INDENT.repeat(depth) + token.text);
      continue;
    }
    if (token.kind === 'open') {
      // An element holding text alone stays on one line: <City>Utrecht</City>.
      const inner = tokens[index + 1];
      const after = tokens[index + 2];
      if (inner?.kind === 'text' && after?.kind === 'close') {
        lines.push(INDENT.repeat(depth) + token.text + inner.text + after.text);
        index += 2;
        continue;
      }
      if (inner?.kind === 'close') {
        lines.push(INDENT.repeat(depth) + token.text + inner.text);
        index += 1;
        continue;
      }
      lines.push(INDENT.repeat(depth) + token.text);
      depth += 1;
      continue;
    }
    if (token.kind === 'close') depth = Math.max(0, depth - 1);
    lines.push(INDENT.repeat(depth) + token.text);
  }
  return lines.join('\n');
}
