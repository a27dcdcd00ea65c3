import { maskElements } from './mask-elements.js';
import { maskNamedValues } from './mask-named-values.js';
import {
  maskBasicCredentials,
  maskFormInputs,
  maskMultipartFields,
  maskNameValuePairs,
  maskPathTokens,
  maskPrivateKeys,
} from './mask-structures.js';
import { SecretNames } from './secret-names.js';
import { applyCuts, CODE, type Cut, REDACTED, withCut } from './text-cuts.js';

// Masks secrets in any text, as it stands: URLs and their queries and fragments, header values,
// form bodies, JSON, XML and free text (error messages, logs). The text is never parsed, so a
// body too deep to walk, followed by trailing data, cut off or simply not what it claims to be is
// masked all the same; every pass goes forward through the text once, without recursion.
//
// What it looks for:
// - `name=value` and `name: value` where the name is secret (query and form parameters, URL
//   fragments, JSON members, XML attributes, "Header: value" lines), the name bare or quoted;
// - XML elements with a secret name (<AccessToken>…</AccessToken>), whatever their content;
// - user and password in URLs (https://user:pass@host/), bearer tokens, Basic credentials, PEM
//   private keys and JWTs anywhere;
// - what only the shape around it gives away (mask-structures.ts): multipart fields, name/value
//   data and HTML inputs of a secret name, tokens in URL paths.
// A value that does not end (a string whose quote never comes) is masked to the end of the text.

export { REDACTED };
export const DEFAULT_NAMES = new SecretNames();

// A placeholder without a letter or digit ("Bearer …" in a service's hint) is no credential.
const BEARER = /\bbearer\s+((?=[^\s"'<>,;]*[A-Za-z0-9])[^\s"'<>,;]+)/dgi;

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

const MENTIONS_SCHEME = /bearer|basic/i;

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
  if (MENTIONS_SCHEME.test(text)) {
    cuts = maskPattern(text, BEARER, cuts);
    cuts = maskBasicCredentials(text, cuts);
  }
  cuts = maskPrivateKeys(text, cuts);
  cuts = maskMultipartFields(text, names, cuts);
  cuts = maskNameValuePairs(text, names, cuts);
  cuts = maskFormInputs(text, names, cuts);
  if (text.indexOf('/') >= 0) cuts = maskPathTokens(text, names, cuts);
  return applyCuts(text, cuts);
}
