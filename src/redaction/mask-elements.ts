import { HASH_MASK, type SecretNames } from './secret-names.js';
import { type Cut, DOUBLE_QUOTE, isSpace, REDACTED, SINGLE_QUOTE, withCut } from './text-cuts.js';

// The content of XML elements with a secret name (<AccessToken>…</AccessToken>), prefixed or not,
// whatever it holds: text, CDATA, nested elements.

const isXmlNameStart = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
const isXmlNameChar = (code: number) =>
  isXmlNameStart(code) || (code >= 48 && code <= 58) || code === 45 || code === 46;

/** Where the tag opening at `open` ends (its ">"), quoted attribute values skipped, or -1. */
function tagEnd(text: string, open: number): number {
  for (let at = open + 1; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) {
      const close = text.indexOf(text[at] as string, at + 1);
      if (close < 0) return -1;
      at = close;
    } else if (code === 62) return at;
  }
  return -1;
}

/** Whether `<name` or `</name` at `at` is that element's tag, not one whose name goes on. */
function tagOf(text: string, at: number, name: string): boolean {
  if (!text.startsWith(name, at)) return false;
  const after = text.charCodeAt(at + name.length);
  return Number.isNaN(after) || isSpace(after) || after === 62 || after === 47;
}

/** The end of an element's content that starts at `start`: its closing tag, nested ones counted. */
function contentEnd(text: string, start: number, qname: string): number {
  let depth = 1;
  let at = text.indexOf('<', start);
  while (at >= 0) {
    if (text.startsWith('<![CDATA[', at)) {
      const end = text.indexOf(']]>', at);
      if (end < 0) return text.length;
      at = text.indexOf('<', end + 3);
      continue;
    }
    if (text.startsWith('<!--', at)) {
      const end = text.indexOf('-->', at);
      if (end < 0) return text.length;
      at = text.indexOf('<', end + 3);
      continue;
    }
    if (text.charCodeAt(at + 1) === 47 && tagOf(text, at + 2, qname)) {
      depth -= 1;
      if (depth === 0) return at;
    } else if (tagOf(text, at + 1, qname)) {
      const end = tagEnd(text, at);
      if (end < 0) return text.length;
      if (text.charCodeAt(end - 1) !== 47) depth += 1;
    }
    at = text.indexOf('<', at + 1);
  }
  return text.length;
}

/** The content of XML elements with a secret name. */
export function maskElements(text: string, names: SecretNames, cuts: Cut[] | undefined): Cut[] | undefined {
  let at = text.indexOf('<');
  while (at >= 0) {
    let next = at + 1;
    if (isXmlNameStart(text.charCodeAt(at + 1))) {
      // The local name (after any prefix) is what is judged; it is hashed as it is read.
      let nameEnd = at + 1;
      let local = at + 1;
      let hash = 0;
      for (; nameEnd < text.length; nameEnd += 1) {
        const code = text.charCodeAt(nameEnd);
        if (!isXmlNameChar(code)) break;
        if (code === 58) {
          local = nameEnd + 1;
          hash = 0;
        } else hash = (Math.imul(hash, 31) + code) & HASH_MASK;
      }
      if (names.isSecret(text, local, nameEnd, hash)) {
        const open = tagEnd(text, at);
        if (open < 0) {
          // A start tag that never ends: whatever follows may be the secret.
          cuts = withCut(cuts, { start: nameEnd, end: text.length, text: REDACTED });
          return cuts;
        }
        if (text.charCodeAt(open - 1) !== 47) {
          const close = contentEnd(text, open + 1, text.slice(at + 1, nameEnd));
          if (close > open + 1) cuts = withCut(cuts, { start: open + 1, end: close, text: REDACTED });
          next = close;
        }
      }
    }
    at = text.indexOf('<', next);
  }
  return cuts;
}
