import { HASH_MASK, type SecretNames } from './secret-names.js';
import { type Cut, closingQuote, DOUBLE_QUOTE, isSpace, REDACTED, SINGLE_QUOTE, withCut } from './text-cuts.js';

// Secrets that no `name=value` or `name: value` gives away, found by the shape around them:
// - PEM private keys, wherever they are;
// - HTTP Basic credentials ("Basic dXNlcjpwYXNz") in any field, whatever its name;
// - multipart fields of a secret name (Content-Disposition: form-data; name="client_secret");
// - secrets held as name/value data ({"name":"X-Auth-Token","value":"…"}, <Name>…</Name><Value>…);
// - HTML form inputs and meta tags of a secret name (<input name="csrf_token" value="…">);
// - tokens in URL paths, the segment after a segment of a secret name (/session/…, /token/…).
// Each pass looks for what it needs first and is over at once when it is not there.

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/g;
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/g;

/** The body of PEM private keys (from after their BEGIN line to their END line, or the text's end). */
export function maskPrivateKeys(text: string, cuts: Cut[] | undefined): Cut[] | undefined {
  if (text.indexOf('PRIVATE KEY-----') < 0) return cuts;
  PEM_BEGIN.lastIndex = 0;
  for (let begin = PEM_BEGIN.exec(text); begin; begin = PEM_BEGIN.exec(text)) {
    const start = begin.index + begin[0].length;
    PEM_END.lastIndex = start;
    const end = PEM_END.exec(text);
    const stop = end ? end.index : text.length;
    cuts = withCut(cuts, { start, end: stop, text: REDACTED });
    PEM_BEGIN.lastIndex = stop;
  }
  return cuts;
}

const BASIC = /\bbasic\s+([A-Za-z0-9+/]{4,}={0,2})/dgi;

/** "Basic <base64 of user:password>" in any field: what decodes to a pair with a colon. */
export function maskBasicCredentials(text: string, cuts: Cut[] | undefined): Cut[] | undefined {
  BASIC.lastIndex = 0;
  for (let match = BASIC.exec(text); match; match = BASIC.exec(text)) {
    const [start, end] = match.indices?.[1] ?? [0, 0];
    const encoded = match[1] as string;
    let decoded = '';
    try {
      decoded = atob(encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '='));
    } catch {
      continue;
    }
    // "Basic plan" is no credential; a user and password joined by a colon is.
    if (decoded.includes(':')) cuts = withCut(cuts, { start, end, text: REDACTED });
  }
  return cuts;
}

/** Where a quoted or bare attribute value starting at `at` ends (exclusive), and where it starts. */
function attributeValue(text: string, at: number): [number, number] {
  const first = text.charCodeAt(at);
  if (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) return [at + 1, closingQuote(text, at)];
  let end = at;
  while (end < text.length && !isSpace(text.charCodeAt(end)) && text.charCodeAt(end) !== 62) end += 1;
  return [at, end];
}

const FORM_DATA_NAME = /form-data\s*;[^\r\n]*?\bname\s*=\s*("[^"\r\n]*"|[^;\s]+)/gi;

/** The content of multipart fields with a secret name, up to the next boundary. */
export function maskMultipartFields(text: string, names: SecretNames, cuts: Cut[] | undefined): Cut[] | undefined {
  if (text.indexOf('form-data') < 0) return cuts;
  FORM_DATA_NAME.lastIndex = 0;
  for (let match = FORM_DATA_NAME.exec(text); match; match = FORM_DATA_NAME.exec(text)) {
    const quoted = (match[1] as string).startsWith('"');
    const name = quoted ? (match[1] as string).slice(1, -1) : (match[1] as string);
    if (!names.isSecret(name)) continue;
    const headEnd = text.indexOf('\r\n\r\n', match.index);
    const start = headEnd < 0 ? text.indexOf('\n\n', match.index) + 2 : headEnd + 4;
    if (start < 2) {
      cuts = withCut(cuts, { start: match.index + match[0].length, end: text.length, text: REDACTED });
      continue;
    }
    const boundary = text.indexOf('\r\n--', start);
    const end = boundary < 0 ? text.length : boundary;
    if (end > start) cuts = withCut(cuts, { start, end, text: REDACTED });
  }
  return cuts;
}

const JSON_NAME_MEMBER = /"(?:name|key|header|field)"\s*:\s*"((?:[^"\\]|\\.)*)"/gi;
const JSON_VALUE_MEMBER = /"value"\s*:\s*/gi;

/** The end of the JSON object the member at `at` is in: its "}" (strings skipped), or the text's end. */
function objectEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === DOUBLE_QUOTE) i = closingQuote(text, i);
    else if (code === 123 || code === 91) depth += 1;
    else if (code === 125 || code === 93) {
      if (depth === 0) return i;
      depth -= 1;
    }
  }
  return text.length;
}

/** The start of the JSON object the member at `at` is in: its "{", or 0. */
function objectStart(text: string, at: number): number {
  let depth = 0;
  for (let i = at - 1; i >= 0; i -= 1) {
    const code = text.charCodeAt(i);
    if (code === 125 || code === 93) depth += 1;
    else if (code === 123 || code === 91) {
      if (depth === 0) return i;
      depth -= 1;
    }
  }
  return 0;
}

/** The value of a JSON member whose value starts at `at`: a string's content, or a bare value. */
function jsonValueCut(text: string, at: number): Cut | undefined {
  if (text.charCodeAt(at) === DOUBLE_QUOTE) {
    const close = closingQuote(text, at);
    return close > at + 1 ? { start: at + 1, end: close, text: REDACTED } : undefined;
  }
  let end = at;
  while (end < text.length && !',}]\r\n'.includes(text[end] as string)) end += 1;
  return end > at ? { start: at, end, text: `"${REDACTED}"` } : undefined;
}

const XML_NAME_VALUE = /<((?:[\w.-]+:)?(?:Name|Key))>([^<]*)<\/\1>\s*<((?:[\w.-]+:)?Value)>/gi;

/**
 * Secrets held as name/value data: the "value" of a JSON object whose "name" (or "key", "header",
 * "field") is a secret name, and an XML <Value> after a <Name> of one.
 */
export function maskNameValuePairs(text: string, names: SecretNames, cuts: Cut[] | undefined): Cut[] | undefined {
  if (text.indexOf('alue') < 0 && text.indexOf('ALUE') < 0) return cuts;
  JSON_NAME_MEMBER.lastIndex = 0;
  for (let match = JSON_NAME_MEMBER.exec(text); match; match = JSON_NAME_MEMBER.exec(text)) {
    if (!names.isSecret(match[1] as string)) continue;
    const from = objectStart(text, match.index);
    const to = objectEnd(text, match.index + match[0].length);
    JSON_VALUE_MEMBER.lastIndex = from;
    for (let value = JSON_VALUE_MEMBER.exec(text); value && value.index < to; value = JSON_VALUE_MEMBER.exec(text)) {
      const cut = jsonValueCut(text, value.index + value[0].length);
      if (cut) cuts = withCut(cuts, cut);
    }
  }
  if (text.indexOf('<') >= 0) {
    XML_NAME_VALUE.lastIndex = 0;
    for (let match = XML_NAME_VALUE.exec(text); match; match = XML_NAME_VALUE.exec(text)) {
      if (!names.isSecret((match[2] as string).trim())) continue;
      const start = match.index + match[0].length;
      const close = text.indexOf(`</${match[3]}>`, start);
      const end = close < 0 ? text.length : close;
      if (end > start) cuts = withCut(cuts, { start, end, text: REDACTED });
    }
  }
  return cuts;
}

const FORM_TAG = /<(?:input|meta|param|option)\b[^>]*>/gi;
const TAG_NAME = /\bname\s*=\s*/gi;
const TAG_VALUE = /\b(?:value|content)\s*=\s*/gi;

const FORM_TAGS = ['input', 'meta', 'param', 'option'];

/** Whether a tag that carries a value by name (input, meta, param, option) opens anywhere in the text. */
function mayHoldFormTag(text: string): boolean {
  // Such a tag is told secret by its name attribute: without one, there is none.
  if (text.indexOf('name') < 0 && text.indexOf('NAME') < 0) return false;
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at + 1)) {
    // i, m, p, o in either case: most tags are ruled out by their first letter.
    const first = text.charCodeAt(at + 1) | 32;
    if (first !== 105 && first !== 109 && first !== 112 && first !== 111) continue;
    for (const tag of FORM_TAGS) {
      let same = true;
      for (let i = 0; i < tag.length && same; i += 1) same = (text.charCodeAt(at + 1 + i) | 32) === tag.charCodeAt(i);
      if (same && !isSegmentChar(text.charCodeAt(at + 1 + tag.length))) return true;
    }
  }
  return false;
}

/** HTML inputs, meta tags and params of a secret name: their value (or content) attribute. */
export function maskFormInputs(text: string, names: SecretNames, cuts: Cut[] | undefined): Cut[] | undefined {
  if (!mayHoldFormTag(text)) return cuts;
  FORM_TAG.lastIndex = 0;
  for (let tag = FORM_TAG.exec(text); tag; tag = FORM_TAG.exec(text)) {
    const start = tag.index;
    const end = start + tag[0].length;
    let secret = false;
    TAG_NAME.lastIndex = start;
    for (let name = TAG_NAME.exec(text); name && name.index < end; name = TAG_NAME.exec(text)) {
      const [from, to] = attributeValue(text, name.index + name[0].length);
      if (names.isSecret(text, from, to)) secret = true;
    }
    if (!secret) continue;
    TAG_VALUE.lastIndex = start;
    for (let value = TAG_VALUE.exec(text); value && value.index < end; value = TAG_VALUE.exec(text)) {
      const [from, to] = attributeValue(text, value.index + value[0].length);
      if (to > from) cuts = withCut(cuts, { start: from, end: Math.min(to, end), text: REDACTED });
    }
  }
  return cuts;
}

/** Characters of path segments a name can be read from: letters, digits, "-", "_". */
const SEGMENT_CHAR = new Uint8Array(128);
for (const char of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_')
  SEGMENT_CHAR[char.charCodeAt(0)] = 1;
const isSegmentChar = (code: number) => code < 128 && SEGMENT_CHAR[code] === 1;
/** Ends of a path segment: the next separator, the query, the fragment, a quote, a blank, a tag. */
const END_OF_SEGMENT = new Uint8Array(128);
for (const char of '/\\?#"\'<>& \t\r\n,;)') END_OF_SEGMENT[char.charCodeAt(0)] = 1;

/**
 * Tokens in URL paths: the segment after a segment of a secret name ("/pay/session/…",
 * "/reset/token/…", "/apikey/…"), also with JSON's escaped slashes ("\/token\/…").
 */
export function maskPathTokens(text: string, names: SecretNames, cuts: Cut[] | undefined): Cut[] | undefined {
  for (let slash = text.indexOf('/'); slash >= 0; slash = text.indexOf('/', slash + 1)) {
    // A closing tag ("</token>") is no path.
    if (slash > 0 && text.charCodeAt(slash - 1) === 60) continue;
    const start = slash + 1;
    let end = start;
    let hash = 0;
    for (; end < text.length; end += 1) {
      const code = text.charCodeAt(end);
      if (code >= 128 || SEGMENT_CHAR[code] !== 1) break;
      hash = (Math.imul(hash, 31) + code) & HASH_MASK;
    }
    // The segment ends at "/" or at JSON's "\/".
    if (end === start || end + 1 >= text.length) continue;
    let next = end;
    if (text.charCodeAt(next) === 92 && text.charCodeAt(next + 1) === 47) next += 1;
    if (text.charCodeAt(next) !== 47) continue;
    if (!names.isSecretSegment(text, start, end, hash)) continue;
    const from = next + 1;
    let to = from;
    while (to < text.length) {
      const code = text.charCodeAt(to);
      if (code < 128 && END_OF_SEGMENT[code] === 1) break;
      to += 1;
    }
    if (to > from) cuts = withCut(cuts, { start: from, end: to, text: REDACTED });
    slash = Math.max(slash, to - 1);
  }
  return cuts;
}
