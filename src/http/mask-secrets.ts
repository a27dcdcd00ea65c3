import { HASH_MASK, nameHash, SecretNames } from './secret-names.js';

// Masks secrets in any text, as it stands: URLs and their queries and fragments, header values,
// form bodies, JSON, XML and free text (error messages, logs). The text is never parsed, so a
// body too deep to walk, followed by trailing data, cut off or simply not what it claims to be is
// masked all the same; every pass goes forward through the text once, without recursion.
//
// What it looks for:
// - `name=value` and `name: value` where the name is secret (query and form parameters, URL
//   fragments, JSON members, XML attributes, "Header: value" lines), the name bare or quoted;
// - XML elements with a secret name (<AccessToken>…</AccessToken>), whatever their content;
// - user and password in URLs (https://user:pass@host/), bearer tokens and JWTs anywhere.
// A value that does not end (a string whose quote never comes) is masked to the end of the text.

export const REDACTED = '[Filtered]';
export const DEFAULT_NAMES = new SecretNames();
const QUOTED_REDACTED = `"${REDACTED}"`;

interface Cut {
  start: number;
  end: number;
  text: string;
}

/** Cut lists are made on the first cut: most texts need none. */
function withCut(cuts: Cut[] | undefined, cut: Cut): Cut[] {
  if (!cuts) return [cut];
  cuts.push(cut);
  return cuts;
}

const CODE = (char: string) => char.charCodeAt(0);
const BACKSLASH = CODE('\\');
const DOUBLE_QUOTE = CODE('"');
const SINGLE_QUOTE = CODE("'");

/** Characters of bare names: words, and what encoded or bracketed names are spelt with. */
const NAME_CHAR = new Uint8Array(128);
for (const char of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-%\\[]$') NAME_CHAR[CODE(char)] = 1;
const isNameChar = (code: number) => code < 128 && NAME_CHAR[code] === 1;

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;
const isBlank = (code: number) => code === 32 || code === 9;

/** Ends of bare values: after "=" (URLs, forms, attributes) and after "name:" in JSON and in text. */
const END_AFTER_EQUALS = new Uint8Array(128);
for (const char of '&#<> \t\r\n') END_AFTER_EQUALS[CODE(char)] = 1;
const END_AFTER_MEMBER = new Uint8Array(128);
for (const char of ',}]<> \t\r\n') END_AFTER_MEMBER[CODE(char)] = 1;
const END_OF_LINE = new Uint8Array(128);
for (const char of '<>\r\n') END_OF_LINE[CODE(char)] = 1;

/** Whether the character at `at` is preceded by an odd number of backslashes (escaped). */
function escaped(text: string, at: number): boolean {
  let count = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === BACKSLASH; i -= 1) count += 1;
  return count % 2 === 1;
}

/** Where the quoted string opening at `open` closes, or the text's length when it never does. */
function closingQuote(text: string, open: number): number {
  const quote = text[open] as string;
  for (let at = text.indexOf(quote, open + 1); at >= 0; at = text.indexOf(quote, at + 1))
    if (!escaped(text, at)) return at;
  return text.length;
}

/** The end (exclusive) of the object or array opening at `open`; strings inside are skipped. */
function balancedEnd(text: string, open: number): number {
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

/** The end of a bare value starting at `start`: the first terminator not escaped. */
function bareEnd(text: string, start: number, ends: Uint8Array): number {
  for (let at = start; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code < 128 && ends[code] === 1) return at;
    if ((code === DOUBLE_QUOTE || code === SINGLE_QUOTE) && !escaped(text, at)) return at;
  }
  return text.length;
}

// Where the last name found by nameBefore is, and its hash (see nameHash): set there and read at
// once by its caller, so that finding a name allocates nothing and reads it once (this runs for
// every ":" and "=" of every text).
let nameStart = 0;
let nameEnd = 0;
let nameQuoted = false;
let nameHashed = 0;

/**
 * Finds the name before a separator at `at` ("=" or ":"): quoted ("access_token": …) or bare
 * (access_token=…), with blanks between allowed. False when there is none.
 */
function nameBefore(text: string, at: number): boolean {
  let end = at;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end -= 1;
  if (end === 0) return false;
  const last = text.charCodeAt(end - 1);
  let hash = 0;
  let power = 1;
  if (last === DOUBLE_QUOTE || last === SINGLE_QUOTE) {
    // Back to the nearest quote, escaped or not, hashing on the way. Stopping at escaped quotes
    // too keeps every character read once however many names a text holds ('"\\":\\":…' would
    // otherwise send each ":" back to the start); a name with a quote in it is read in part.
    let open = end - 2;
    for (; open >= 0; open -= 1) {
      const code = text.charCodeAt(open);
      if (code === last) break;
      hash = (hash + Math.imul(code, power)) & HASH_MASK;
      power = Math.imul(power, 31) & HASH_MASK;
    }
    if (open < 0) return false;
    nameStart = open + 1;
    nameEnd = end - 1;
    nameHashed = hash;
    // An escaped quote ('\\"token\\": x' inside a JSON string) names nothing JSON: a masked value
    // there must not bring quotes of its own into the string.
    nameQuoted = !escaped(text, end - 1) && !escaped(text, open);
    return true;
  }
  let start = end;
  for (; start > 0; start -= 1) {
    const code = text.charCodeAt(start - 1);
    if (!isNameChar(code)) break;
    hash = (hash + Math.imul(code, power)) & HASH_MASK;
    power = Math.imul(power, 31) & HASH_MASK;
  }
  nameStart = start;
  nameEnd = end;
  nameQuoted = false;
  nameHashed = hash;
  return start < end;
}

/** The cut that masks the value after a secret name's separator, which ends before `after`. */
function valueCut(text: string, after: number, separator: '=' | ':', quotedName: boolean): Cut | undefined {
  let start = after;
  const skip = separator === ':' && quotedName ? isSpace : isBlank;
  while (start < text.length && skip(text.charCodeAt(start))) start += 1;
  if (start >= text.length) return undefined;
  const first = text.charCodeAt(start);
  if (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) {
    const close = closingQuote(text, start);
    return close > start + 1 ? { start: start + 1, end: close, text: REDACTED } : undefined;
  }
  if ((first === 123 || first === 91) && separator === ':')
    return { start, end: balancedEnd(text, start), text: quotedName ? QUOTED_REDACTED : REDACTED };
  const ends = separator === '=' ? END_AFTER_EQUALS : quotedName ? END_AFTER_MEMBER : END_OF_LINE;
  const end = bareEnd(text, start, ends);
  if (end === start) return undefined;
  // A JSON member's number or literal becomes a string: the body stays JSON.
  return { start, end, text: separator === ':' && quotedName ? QUOTED_REDACTED : REDACTED };
}

/**
 * The width of a percent-encoded "=" at `at` ("%3D", or "%253D" encoded twice), or 0. URLs
 * carried in a parameter (redirect_uri=https%3A%2F%2F…%3Fcode%3D…) have their own parameters so.
 */
function encodedEquals(text: string, at: number): number {
  let from = at + 1;
  if (text.startsWith('25', from)) from += 2;
  const d = text.charCodeAt(from + 1);
  return text.charCodeAt(from) === 51 && (d === 68 || d === 100) ? from + 2 - at : 0;
}

/** Percent-encoded delimiters before a name: "?", "&", "#", ";", "/", ":" (once or twice encoded). */
const ENCODED_DELIMITER = /%(?:25)?(?:3F|26|23|3B|2F|3A)/gi;

/**
 * Narrows the name nameBefore found before a percent-encoded "=" to what follows the last
 * encoded delimiter in it: in "https%3A%2F%2Fapp%2Fcb%3Fcode%3D…" the name is "code".
 */
function afterEncodedDelimiter(text: string): void {
  const name = text.slice(nameStart, nameEnd);
  let start = -1;
  ENCODED_DELIMITER.lastIndex = 0;
  for (let match = ENCODED_DELIMITER.exec(name); match; match = ENCODED_DELIMITER.exec(name))
    start = match.index + match[0].length;
  if (start < 0) return;
  nameStart += start;
  nameHashed = nameHash(text, nameStart, nameEnd);
}

/** Values of secret names, after "=" (plain or percent-encoded) or ":". */
function maskNamedValues(text: string, names: SecretNames, cuts: Cut[] | undefined): Cut[] | undefined {
  let colon = text.indexOf(':');
  let equals = text.indexOf('=');
  let percent = text.indexOf('%');
  while (colon >= 0 || equals >= 0 || percent >= 0) {
    // The nearest of the three; -1 (none left) is never nearest.
    let at = colon;
    if (at < 0 || (equals >= 0 && equals < at)) at = equals;
    if (at < 0 || (percent >= 0 && percent < at)) at = percent;
    const isColon = at === colon;
    const width = at === percent ? encodedEquals(text, at) : 1;
    let next = at + 1;
    if (width > 0 && nameBefore(text, at)) {
      if (width > 1) afterEncodedDelimiter(text);
      const secret = isColon
        ? names.isSecret(text, nameStart, nameEnd, nameHashed)
        : names.isSecretParam(text, nameStart, nameEnd, nameHashed);
      const cut = secret ? valueCut(text, at + width, isColon ? ':' : '=', nameQuoted) : undefined;
      if (cut) {
        cuts = withCut(cuts, cut);
        next = cut.end;
      }
    }
    if (colon >= 0 && colon < next) colon = text.indexOf(':', next);
    if (equals >= 0 && equals < next) equals = text.indexOf('=', next);
    if (percent >= 0 && percent < next) percent = text.indexOf('%', next);
  }
  return cuts;
}

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
function maskElements(text: string, names: SecretNames, cuts: Cut[] | undefined): Cut[] | undefined {
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

const BEARER = /\bbearer\s+([^\s"'<>,;]+)/dgi;

/** Characters that end a URL's authority (and with it, user and password). */
const END_OF_AUTHORITY = new Uint8Array(128);
for (const char of '/\\?#@"\'<> \t\r\n') END_OF_AUTHORITY[CODE(char)] = 1;

/**
 * User and password of URLs ("https://user:pass@host", in JSON "https:\/\/…"): what comes
 * between "//" and an "@" before the authority ends. Read forward from each "//", once.
 */
function maskUserinfo(text: string, cuts: Cut[] | undefined): Cut[] | undefined {
  for (const slashes of ['//', '\\/\\/']) cuts = maskUserinfoAfter(text, slashes, cuts);
  return cuts;
}

function maskUserinfoAfter(text: string, slashes: string, cuts: Cut[] | undefined): Cut[] | undefined {
  for (let at = text.indexOf(slashes); at >= 0; at = text.indexOf(slashes, at + slashes.length)) {
    const start = at + slashes.length;
    let end = start;
    while (end < text.length) {
      const code = text.charCodeAt(end);
      if (code < 128 && END_OF_AUTHORITY[code] === 1) break;
      end += 1;
    }
    if (text.charCodeAt(end) === 64 && end > start) cuts = withCut(cuts, { start, end, text: REDACTED });
    at = end - slashes.length;
  }
  return cuts;
}

const isJwtChar = (code: number) =>
  (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 45 || code === 95;

/** JWTs anywhere ("eyJ…" segments joined by dots), each read forward once. */
function maskJwts(text: string, cuts: Cut[] | undefined): Cut[] | undefined {
  for (let at = text.indexOf('eyJ'); at >= 0; at = text.indexOf('eyJ', at)) {
    let end = at;
    let segments = 0;
    for (;;) {
      const start = end;
      while (end < text.length && isJwtChar(text.charCodeAt(end))) end += 1;
      if (end > start) segments += 1;
      if (text.charCodeAt(end) !== 46 || segments === 3) break;
      end += 1;
    }
    if (segments >= 2) cuts = withCut(cuts, { start: at, end, text: REDACTED });
    at = Math.max(end, at + 3);
  }
  return cuts;
}

function maskPattern(text: string, pattern: RegExp, cuts: Cut[] | undefined): Cut[] | undefined {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    // The credential is the first group where there is one, else the whole match.
    const [start, end] = match.indices?.[1] ?? [match.index, match.index + match[0].length];
    cuts = withCut(cuts, { start, end, text: REDACTED });
  }
  return cuts;
}

/** The text with the cuts made; overlapping cuts are joined into the first. */
function applyCuts(text: string, cuts: Cut[] | undefined): string {
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

const MENTIONS_BEARER = /bearer/i;

/** Characters every secret this masks is found by: ":", "=", "%", "<", "@", the J of "eyJ", the b of "bearer". */
const TELLING = new Uint8Array(128);
for (const char of ':=%<@JbB') TELLING[CODE(char)] = 1;
/** Texts up to this long (header values, most URLs) are first read once for telling characters. */
const SHORT = 96;

/** False when the text has none of the characters any secret is found by. */
function mayHoldSecret(text: string): boolean {
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (TELLING[code] === 1) return true;
  }
  return false;
}

/** Whether "eyJ" (how every JWT starts) is in the text, found by its rare "J" rather than its "e". */
function mentionsJwt(text: string): boolean {
  for (let at = text.indexOf('J', 2); at >= 0; at = text.indexOf('J', at + 1))
    if (text.charCodeAt(at - 1) === 121 && text.charCodeAt(at - 2) === 101) return true;
  return false;
}

/**
 * The text with every secret it holds masked as `[Filtered]`; the same string when it holds none.
 * @param names which names are secret (default: the built-in list)
 */
export function maskSecrets(text: string, names: SecretNames = DEFAULT_NAMES): string {
  if (text.length <= SHORT && !mayHoldSecret(text)) return text;
  // Each pass looks for what it needs first and is over at once when it is not there.
  let cuts = maskNamedValues(text, names, undefined);
  cuts = maskElements(text, names, cuts);
  if (text.indexOf('@') >= 0) cuts = maskUserinfo(text, cuts);
  if (mentionsJwt(text)) cuts = maskJwts(text, cuts);
  if (MENTIONS_BEARER.test(text)) cuts = maskPattern(text, BEARER, cuts);
  return applyCuts(text, cuts);
}
