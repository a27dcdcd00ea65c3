// Which names carry credentials: header names, query and form parameters, JSON members and XML
// elements alike. Names are compared normalised, so that every spelling of one name is caught:
// case, "_", "-", "." or nothing between words, percent-encoded ("access%5Ftoken") and
// JSON-escaped ("client\u005fsecret") characters all come to the same thing.
//
// The list errs on the side of hiding: a name that merely looks secret is redacted too.

/** A name that holds any of these, once normalised, is secret wherever it is. */
const SECRET_PARTS = [
  'token', // access_token, refresh_token, id_token, X-Auth-Token, X-Amz-Security-Token, accessToken
  'secret', // client_secret, ClientSecret
  'passw', // password, passwd, passwort
  'apikey', // apikey, api_key, Api-Key, X-Api-Key
  'credential',
  'signature',
  'cookie', // Cookie, Set-Cookie
  'authorization', // Authorization, Proxy-Authorization
  'sessionid',
  'bearer',
  'jwt',
  'verifier', // code_verifier (PKCE), codeVerifier
  'saml', // SAMLResponse, SAMLRequest, saml_assertion
  'authcode', // auth_code, authCode, oauth_code
  'otpcode', // otp_code
  'totp',
  'passcode',
  'nextnonce', // Authentication-Info: nextnonce=…
  'authenticationinfo', // Authentication-Info (nextnonce, rspauth)
  'rspauth',
];

/** Names secret only as they are: as parts of longer names they are common words. */
const SECRET_NAMES = new Set([
  'key',
  'pwd',
  'pass',
  'auth',
  'otp',
  'pin',
  'session',
  'sid',
  'sig',
  'saml',
  'xauth', // X-Auth
  'xsession', // X-Session
]);

/** Secret as a name's last word: apiKey, accessKey, subscriptionKey, privateKey. */
const SECRET_SUFFIXES = ['key'];

/**
 * Secret as query or form parameters, where OAuth and signed URLs put them ("?code=", "&sig="),
 * but not as JSON members, where they are ordinary fields (an error's "code").
 */
const SECRET_PARAMS = new Set(['code']);

const PERCENT = /%([0-9a-f]{2})/gi;
const JSON_ESCAPE = /\\u([0-9a-f]{4})|\\(.)/gi;
const JSON_SIMPLE: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

const CHARACTER_REFERENCE = /&#(?:([0-9]{1,7})|[xX]([0-9a-fA-F]{1,6}));/g;

/** A name as compared: escapes decoded, lower case, letters and digits only. */
export function normaliseName(raw: string): string {
  let name = raw;
  if (name.includes('&#'))
    name = name.replace(CHARACTER_REFERENCE, (_, decimal: string | undefined, hex: string | undefined) => {
      const code = decimal ? Number.parseInt(decimal, 10) : Number.parseInt(hex as string, 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : '';
    });
  if (name.includes('\\'))
    name = name.replace(JSON_ESCAPE, (_, hex: string | undefined, char: string | undefined) =>
      hex ? String.fromCharCode(Number.parseInt(hex, 16)) : (JSON_SIMPLE[char as string] ?? (char as string)),
    );
  // Encoded twice ("%255F") is still the same name to whoever decodes it twice.
  for (let round = 0; round < 3 && name.includes('%'); round += 1) {
    const decoded = name.replace(PERCENT, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (decoded === name) break;
    name = decoded;
  }
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function secretAnywhere(name: string, extra: ReadonlySet<string>): boolean {
  if (name === '') return false;
  if (SECRET_NAMES.has(name) || extra.has(name)) return true;
  for (const part of SECRET_PARTS) if (name.includes(part)) return true;
  for (const suffix of SECRET_SUFFIXES) if (name.endsWith(suffix)) return true;
  return false;
}

const isUpper = (code: number) => code >= 65 && code <= 90;
const isLower = (code: number) => code >= 97 && code <= 122;

/**
 * The words of a name as written: split at "-", "_", "." and where case changes ("apiKey",
 * "JWTToken"), lower-cased.
 */
function wordsOf(raw: string): string[] {
  const words: string[] = [];
  let word = '';
  for (let at = 0; at < raw.length; at += 1) {
    const code = raw.charCodeAt(at);
    if (code === 45 || code === 95 || code === 46) {
      if (word) words.push(word);
      word = '';
      continue;
    }
    const prev = raw.charCodeAt(at - 1);
    const startsWord =
      word !== '' &&
      isUpper(code) &&
      (isLower(prev) || (isUpper(prev) && isLower(raw.charCodeAt(at + 1))) || (prev >= 48 && prev <= 57));
    if (startsWord) {
      words.push(word);
      word = '';
    }
    word += String.fromCharCode(code).toLowerCase();
  }
  if (word) words.push(word);
  return words;
}

const LETTERS_ONLY = /^[a-z]+$/;

/** Whether the name's last word, or its last two words together, is a secret name of letters. */
function namesSecretAsWords(raw: string, extra: ReadonlySet<string>): boolean {
  const words = wordsOf(raw);
  const last = words[words.length - 1];
  if (last === undefined) return false;
  const candidates = [last];
  if (words.length >= 2) candidates.push(words[words.length - 2] + last);
  return candidates.some((word) => LETTERS_ONLY.test(word) && secretAnywhere(word, extra));
}

/** Whether text[start, end) is the name, compared where it stands (startsWith costs more). */
function sameName(name: string, text: string, start: number, end: number): boolean {
  if (name.length !== end - start) return false;
  for (let at = start; at < end; at += 1) if (name.charCodeAt(at - start) !== text.charCodeAt(at)) return false;
  return true;
}

/** Hashes stay small integers, which a Map looks up without boxing them. */
export const HASH_MASK = 0x3fffffff;

/** The hash names are remembered by: sum of code(i) * 31^(length-1-i), modulo 2^30. */
export function nameHash(text: string, start: number, end: number): number {
  let hash = 0;
  for (let at = start; at < end; at += 1) hash = (Math.imul(hash, 31) + text.charCodeAt(at)) & HASH_MASK;
  return hash;
}

const MEMBER = 1;
const PARAM = 2;
const PATH_NAME = 4;
/** Names seen repeat (the same headers and members in every exchange): their verdicts are kept. */
const CACHE_LIMIT = 4096;
/** Slots of verdicts on names where they stand (a power of two). */
const SLOTS = 4096;

interface Verdict {
  raw: string;
  flags: number;
}

/**
 * Tells secret names from others. Its verdicts are remembered: the proxy asks about the same few
 * dozen names for every exchange it records. A name is asked about where it stands in a text,
 * without being copied out of it: most names are not secret, and copying each cost more than
 * everything else the redaction does.
 */
export class SecretNames {
  private readonly extra: ReadonlySet<string>;
  /**
   * Verdicts by a hash of the name as written, one slot per hash value modulo its size: a name
   * whose slot another took is judged again. The name is kept to tell names of one slot apart.
   */
  private readonly verdicts: (Verdict | undefined)[] = new Array(SLOTS).fill(undefined);

  /** @param extra more names to treat as secret (compared normalised, as a whole). */
  constructor(extra: readonly string[] = []) {
    this.extra = new Set(extra.map(normaliseName).filter((name) => name !== ''));
  }

  private flags(text: string, start: number, end: number, hash: number): number {
    const slot = hash & (SLOTS - 1);
    const known = this.verdicts[slot];
    if (known && sameName(known.raw, text, start, end)) return known.flags;
    const raw = text.slice(start, end);
    const name = normaliseName(raw);
    let flags = secretAnywhere(name, this.extra) ? MEMBER | PARAM : SECRET_PARAMS.has(name) ? PARAM : 0;
    if (flags & MEMBER && namesSecretAsWords(raw, this.extra)) flags |= PATH_NAME;
    this.verdicts[slot] = { raw, flags };
    return flags;
  }

  /**
   * A header name, JSON member, XML element or attribute whose value is secret: text[start, end),
   * of the hash nameHash gives (callers that read the name anyway work it out as they go).
   */
  isSecret(text: string, start = 0, end = text.length, hash = nameHash(text, start, end)): boolean {
    return (this.flags(text, start, end, hash) & MEMBER) !== 0;
  }

  /**
   * A URL path segment that names a secret ("token", "reset-token", "apiKey", "sessionId"), so that
   * the segment after it is one. Read by its words: the random codes and ids that paths are full of
   * hold secret names by chance ("tSjWtWp…" holds "jwt"), never as a word of their own.
   */
  isSecretSegment(text: string, start: number, end: number, hash = nameHash(text, start, end)): boolean {
    return (this.flags(text, start, end, hash) & PATH_NAME) !== 0;
  }

  private readonly keys = new Map<string, boolean>();

  /**
   * isSecret for a name that is a string of its own, such as a header name: object keys are
   * strings V8 keeps once, so looking them up costs less than reading them.
   */
  isSecretKey(name: string): boolean {
    let secret = this.keys.get(name);
    if (secret === undefined) {
      secret = this.isSecret(name);
      if (this.keys.size >= CACHE_LIMIT) this.keys.clear();
      this.keys.set(name, secret);
    }
    return secret;
  }

  /** A query or form parameter whose value is secret (as isSecret). */
  isSecretParam(text: string, start = 0, end = text.length, hash = nameHash(text, start, end)): boolean {
    return (this.flags(text, start, end, hash) & PARAM) !== 0;
  }
}
