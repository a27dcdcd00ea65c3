import { HASH_MASK, nameHash, type SecretNames } from './secret-names.js';
import {
  balancedEnd,
  CODE,
  type Cut,
  closingQuote,
  DOUBLE_QUOTE,
  escaped,
  isBlank,
  isSpace,
  QUOTED_REDACTED,
  REDACTED,
  SINGLE_QUOTE,
  withCut,
} from './text-cuts.js';

// Values of secret names: `name=value` and `name: value`, the name bare or quoted, in query and
// form parameters, URL fragments, JSON members, XML attributes and "Header: value" lines.

/** Characters of bare names: words, and what encoded or bracketed names are spelt with. */
const NAME_CHAR = new Uint8Array(128);
// "+" is a space in a form or query ("token+=…" is the name "token " to a server that trims it).
for (const char of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-%\\[]$+')
  NAME_CHAR[CODE(char)] = 1;
const isNameChar = (code: number) => code < 128 && NAME_CHAR[code] === 1;

/** Ends of bare values: after "=" (URLs, forms, attributes) and after "name:" in JSON and in text. */
const END_AFTER_EQUALS = new Uint8Array(128);
for (const char of '&#<> \t\r\n') END_AFTER_EQUALS[CODE(char)] = 1;
const END_AFTER_MEMBER = new Uint8Array(128);
for (const char of ',}]<> \t\r\n') END_AFTER_MEMBER[CODE(char)] = 1;
const END_OF_LINE = new Uint8Array(128);
for (const char of '<>\r\n') END_OF_LINE[CODE(char)] = 1;

/** An HTTP authentication scheme and the blanks after it, at the start of a header value in text. */
const AUTH_SCHEME = /^(?:bearer|basic|digest|token|negotiate|ntlm|hoba|mutual|dpop)[ \t]+/i;

/** The end of a bare value starting at `start`: the first terminator not escaped. */
function bareEnd(text: string, start: number, ends: Uint8Array): number {
  for (let at = start; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    // A character reference ("&#82;") is a character of the value, not the "&" between parameters.
    if (code === AMPERSAND && text.charCodeAt(at + 1) === HASH_SIGN) {
      const semicolon = text.indexOf(';', at);
      if (semicolon > at && referenceStart(text, semicolon) === at) {
        at = semicolon;
        continue;
      }
    }
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
    let code = text.charCodeAt(start - 1);
    if (code === SEMICOLON) {
      // An XML character reference is a character of the name ("&#116;oken" is "token" to an
      // XML reader): read over it whole.
      const reference = referenceStart(text, start - 1);
      if (reference < 0) break;
      for (let at = start - 1; at >= reference; at -= 1) {
        code = text.charCodeAt(at);
        hash = (hash + Math.imul(code, power)) & HASH_MASK;
        power = Math.imul(power, 31) & HASH_MASK;
      }
      start = reference + 1;
      continue;
    }
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

const SEMICOLON = 0x3b;
const AMPERSAND = 0x26;
const HASH_SIGN = 0x23;
const CHARACTER_REFERENCE = /&#(?:[0-9]{1,7}|[xX][0-9a-fA-F]{1,6})$/;

/** Where the XML character reference ("&#116;", "&#x74;") ending in the ";" at `at` starts, or -1. */
function referenceStart(text: string, at: number): number {
  const from = Math.max(0, at - 10);
  const match = CHARACTER_REFERENCE.exec(text.slice(from, at));
  return match ? from + match.index : -1;
}

/**
 * The width of an "=" escaped at `at` by JSON ("\u003d") or as an XML character reference
 * ("&#61;", "&#x3D;"), or 0: a URL inside a JSON string or an XML text may spell its "=" so, and
 * its readers read an "=".
 */
function escapedEquals(text: string, at: number): number {
  if (text.charCodeAt(at) === 92) {
    return text.startsWith('u003', at + 1) && (text.charCodeAt(at + 5) | 32) === 100 ? 6 : 0;
  }
  const match = /^&#(?:0*61|[xX]0*3[dD]);/.exec(text.slice(at, at + 12));
  return match ? match[0].length : 0;
}

/** The start of the line `at` is on, and how far its first character is indented. */
function indentOf(text: string, at: number): number {
  let start = at;
  while (start > 0 && text.charCodeAt(start - 1) !== 10 && text.charCodeAt(start - 1) !== 13) start -= 1;
  let indent = 0;
  while (isBlank(text.charCodeAt(start + indent))) indent += 1;
  return indent;
}

/**
 * A YAML value on the lines after its name ("client_secret:" and the value below it, or a block
 * scalar "|" or ">"): the lines indented deeper than the name's, from `at` (the end of its line).
 */
function nextLinesCut(text: string, at: number): Cut | undefined {
  const indent = indentOf(text, nameStart);
  let start = -1;
  let end = at;
  let line = at;
  while (line < text.length) {
    // Past the line break.
    if (text.charCodeAt(line) === 13) line += 1;
    if (text.charCodeAt(line) === 10) line += 1;
    let first = line;
    while (isBlank(text.charCodeAt(first))) first += 1;
    let lineEnd = first;
    while (lineEnd < text.length && text.charCodeAt(lineEnd) !== 10 && text.charCodeAt(lineEnd) !== 13) lineEnd += 1;
    const blank = first === lineEnd;
    if (!blank && first - line <= indent) break;
    if (!blank) {
      if (start < 0) start = first;
      end = lineEnd;
    }
    if (lineEnd >= text.length || lineEnd === line) break;
    line = lineEnd;
  }
  return start >= 0 && end > start ? { start, end, text: REDACTED } : undefined;
}

/** The cut that masks the value after a secret name's separator, which ends before `after`. */
function valueCut(text: string, after: number, separator: '=' | ':', quotedName: boolean): Cut | undefined {
  let start = after;
  const skip = separator === ':' && quotedName ? isSpace : isBlank;
  while (start < text.length && skip(text.charCodeAt(start))) start += 1;
  if (start >= text.length) return undefined;
  let first = text.charCodeAt(start);
  if (separator === ':' && !quotedName) {
    // A block scalar's indicator ("|", ">", with "-", "+" or a digit after it) ends its line.
    let at = start;
    if (first === 124 || first === 62) {
      at += 1;
      while (at < text.length && /[-+0-9 \t]/.test(text[at] as string)) at += 1;
    }
    const end = text.charCodeAt(at);
    if (end === 10 || end === 13) return nextLinesCut(text, at);
    first = text.charCodeAt(start);
  }
  if (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) {
    const close = closingQuote(text, start);
    return close > start + 1 ? { start: start + 1, end: close, text: REDACTED } : undefined;
  }
  if (separator === ':' && !quotedName) {
    // "Authorization: Bearer abc" in text: the scheme is a word of the text, the credential after it
    // is the value. A placeholder without a letter or digit ("Bearer …") is no credential at all.
    const scheme = AUTH_SCHEME.exec(text.slice(start, start + 32));
    if (scheme) {
      const credential = start + scheme[0].length;
      const end = bareEnd(text, credential, END_AFTER_EQUALS);
      return /[A-Za-z0-9]/.test(text.slice(credential, end)) ? { start: credential, end, text: REDACTED } : undefined;
    }
  }
  if ((first === 123 || first === 91) && separator === ':')
    return { start, end: balancedEnd(text, start), text: quotedName ? QUOTED_REDACTED : REDACTED };
  const ends = separator === '=' ? END_AFTER_EQUALS : quotedName ? END_AFTER_MEMBER : END_OF_LINE;
  const end = bareEnd(text, start, ends);
  if (end === start) return undefined;
  // A JSON member's null holds no value to hide, and masked it would read as a string that was
  // sent (a null ReturnUrl recorded as "[Filtered]" would be blamed as not echoed).
  if (separator === ':' && quotedName && end - start === 4 && text.startsWith('null', start)) return undefined;
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

/** The width of a percent-encoded delimiter or "=" at `at` ("%3F", "%253F"…), or 0. */
function encodedDelimiter(text: string, at: number): number {
  let from = at + 1;
  if (text.startsWith('25', from)) from += 2;
  const high = text.charCodeAt(from);
  const low = text.charCodeAt(from + 1) | 32;
  // "%3F" ?, "%3D" =, "%3B" ;, "%3A" :, "%26" &, "%23" #, "%2F" /
  const delimiter =
    (high === 51 && (low === 102 || low === 100 || low === 98 || low === 97)) ||
    (high === 50 && (low === 54 || low === 51 || low === 102));
  return delimiter ? from + 2 - at : 0;
}

/**
 * Finds the name before a percent-encoded "=" at `at`: back to the last encoded delimiter (in
 * "https%3A%2F%2Fapp%2Fcb%3Fcode%3D…" the name is "code"), or to a character of no name. Each
 * character is read once: the walk stops at the encoded "=" before it too.
 */
function encodedNameBefore(text: string, at: number): boolean {
  let start = at;
  let hash = 0;
  let power = 1;
  for (; start > 0; start -= 1) {
    const code = text.charCodeAt(start - 1);
    if (!isNameChar(code)) break;
    if (code === 37 && encodedDelimiter(text, start - 1) > 0) {
      // The delimiter itself is no part of the name: drop what was hashed of it.
      const width = encodedDelimiter(text, start - 1);
      if (start - 1 + width <= at) {
        start = start - 1 + width;
        hash = nameHash(text, start, at);
        break;
      }
    }
    hash = (hash + Math.imul(code, power)) & HASH_MASK;
    power = Math.imul(power, 31) & HASH_MASK;
  }
  nameStart = start;
  nameEnd = at;
  nameQuoted = false;
  nameHashed = hash;
  return start < at;
}

/**
 * Whether the bare name nameBefore found is a URL's host ("//apikey.example:8443", "@host:443"):
 * what follows its ":" is a port and a path, and masking it would leave no URL.
 */
function hostBefore(text: string): boolean {
  if (nameQuoted || nameStart === 0) return false;
  const before = text.charCodeAt(nameStart - 1);
  return before === 64 || (before === 47 && text.charCodeAt(nameStart - 2) === 47);
}

/** Values of secret names, after "=" (plain or percent-encoded) or ":". */
export function maskNamedValues(text: string, names: SecretNames, cuts: Cut[] | undefined): Cut[] | undefined {
  let colon = text.indexOf(':');
  let equals = text.indexOf('=');
  let percent = text.indexOf('%');
  let backslash = text.indexOf('\\u003');
  let reference = text.indexOf('&#');
  while (colon >= 0 || equals >= 0 || percent >= 0 || backslash >= 0 || reference >= 0) {
    // The nearest of them; -1 (none left) is never nearest.
    let at = colon;
    if (at < 0 || (equals >= 0 && equals < at)) at = equals;
    if (at < 0 || (percent >= 0 && percent < at)) at = percent;
    if (at < 0 || (backslash >= 0 && backslash < at)) at = backslash;
    if (at < 0 || (reference >= 0 && reference < at)) at = reference;
    const isColon = at === colon;
    const escaped = at === backslash || at === reference;
    const width = at === percent ? encodedEquals(text, at) : escaped ? escapedEquals(text, at) : 1;
    let next = at + 1;
    const named = width > 1 && !escaped ? encodedNameBefore(text, at) : width > 0 && nameBefore(text, at);
    if (named && !(isColon && hostBefore(text))) {
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
    if (backslash >= 0 && backslash < next) backslash = text.indexOf('\\u003', next);
    if (reference >= 0 && reference < next) reference = text.indexOf('&#', next);
  }
  return cuts;
}
