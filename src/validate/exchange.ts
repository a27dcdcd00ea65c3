import type { Side, Violation } from '../findings/types.js';
import { decodeEightBit, eightBitTableOf, encodeWindows1252 } from './eight-bit.js';
import { perUrl } from './url-memo.js';

export type { Side, Violation };

// One HTTP request and its answer, as plain serialisable data. The suite builds them from undici
// answers, the proxy from live traffic, and validate from NDJSON lines and HAR entries, so that one
// core judges all three the same way.

export type Headers = Record<string, string>;

/**
 * What a recording writes in place of a secret. Rules that judge a value's syntax read it as the
 * characters it stands for: a PaymentUrl whose token was masked was a URL when it was answered.
 */
export const SECRET_MASK = '[Filtered]';

/**
 * Whether a recording masked some of this value (a token in a URL, a member named by --redact):
 * its length, and whether it is the same as another value, are not known from it. Rules about
 * those judge no masked value, and count it as no evidence, rather than judge the mask.
 */
export function isMasked(value: string): boolean {
  return value.includes(SECRET_MASK);
}

/** Whether a recording masked all of this value: nothing of what it was can be judged. */
export function isMaskedWhole(value: string): boolean {
  return value.trim() === SECRET_MASK;
}

/** Whether `status` is one an HTTP answer can have (RFC 9110 §15: three digits, 100-599). */
export function isHttpStatus(status: number): boolean {
  return Number.isInteger(status) && status >= 100 && status <= 599;
}

export interface MultipartPart {
  name?: string;
  filename?: string;
  contentType?: string;
  size: number;
  /** base64 of the part's first bytes (enough for magic numbers). */
  headBase64?: string;
}

export interface RecordedBody {
  /**
   * The whole body as text (JSON, XML, forms), decoded as `decodeText` reads bytes: UTF-8, UTF-16
   * behind a byte order mark, or the 8-bit encoding that its declaration or charset names.
   */
  text?: string;
  /** The whole body as base64 (binary bodies small enough to keep, or --record-bodies). */
  base64?: string;
  /** Size in bytes of the body as sent on the wire (after content decoding when decoded). */
  size: number;
  sha256?: string;
  /** base64 of the first bytes of a body that is not held whole. */
  headBase64?: string;
  /** Parts of a multipart/form-data body: headers and first bytes only. */
  parts?: MultipartPart[];
  /** Why the body was not kept for validation (e.g. "too large"). */
  skipped?: string;
  /** The body did not decode as its Content-Encoding names (gzip, deflate, br): what the decoder said. */
  codingError?: string;
}

export interface RecordedRequest {
  method: string;
  url: string;
  /** Header names lower-case; repeated headers joined with ", ". */
  headers: Headers;
  body?: RecordedBody;
}

export interface RecordedResponse {
  status: number;
  headers: Headers;
  body?: RecordedBody;
}

export interface Exchange {
  id?: string;
  startedAt?: string;
  /** From the request's start to the answer's end. */
  durationMs?: number;
  /** From the request's start to the answer's head. */
  headMs?: number;
  request: RecordedRequest;
  /** Absent when no answer came (connection refused, reset, timeout): see `error`. */
  response?: RecordedResponse;
  error?: string;
}

export function header(headers: Headers | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const direct = headers[name];
  if (direct !== undefined) return direct;
  // Recordings name headers in lower case; one written by hand may not. The length is compared
  // first: most names differ in it, and an absent header is asked for on every exchange.
  const lower = name.toLowerCase();
  for (const key in headers) {
    if (key.length === lower.length && key.toLowerCase() === lower) return headers[key];
  }
  return undefined;
}

/**
 * What mediaType made of the header values seen lately (null: no type): an exchange asks for the
 * type of the same few values several times (scope, format, coverage), and every answer made
 * anew was a new string, hashed again wherever it keys a table. Bounded in number and length.
 */
const mediaTypes = new Map<string, string | null>();
const MEDIA_TYPES_KEPT = 256;
const LONGEST_KEPT = 256;

/** The media type of a Content-Type or Accept item, lower-case, without parameters. */
export function mediaType(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.length > LONGEST_KEPT) return readMediaType(value);
  let type = mediaTypes.get(value);
  if (type === undefined) {
    type = readMediaType(value) ?? null;
    if (mediaTypes.size >= MEDIA_TYPES_KEPT) mediaTypes.clear();
    mediaTypes.set(value, type);
  }
  return type ?? undefined;
}

function readMediaType(value: string): string | undefined {
  const semicolon = value.indexOf(';');
  const type = (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  return type || undefined;
}

export function mediaParam(value: string | undefined, name: string): string | undefined {
  if (!value) return undefined;
  for (const part of value.split(';').slice(1)) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim().toLowerCase() === name)
      return part
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/**
 * The bytes a body held as text was read from, as far as its size tells: one byte a character for
 * text read from an 8-bit encoding (ISO-8859-1), two behind a byte order mark for UTF-16 (little
 * endian, as .NET and Windows write it), else UTF-8.
 */
export function bytesOfText(body: { text: string; size: number }): Buffer {
  const { text, size } = body;
  if (text.charCodeAt(0) === 0xfeff && size === 2 * text.length && Buffer.byteLength(text) !== size)
    return Buffer.from(text, 'utf16le');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Latin-1 is exactly this range
  if (size === text.length && Buffer.byteLength(text) !== size && /^[\u0000-\u00ff]*$/.test(text))
    return Buffer.from(text, 'latin1');
  if (size === text.length && Buffer.byteLength(text) !== size) {
    const windows1252 = encodeWindows1252(text);
    if (windows1252) return windows1252;
  }
  return Buffer.from(text, 'utf8');
}

/** The bytes of a body that are known: all of it when held whole, else its first bytes. */
export function knownBytes(body: RecordedBody | undefined): Buffer | undefined {
  if (!body) return undefined;
  if (body.base64 !== undefined) return Buffer.from(body.base64, 'base64');
  if (body.text !== undefined) return bytesOfText({ text: body.text, size: body.size });
  if (body.headBase64 !== undefined) return Buffer.from(body.headBase64, 'base64');
  return undefined;
}

/** The text without a leading byte order mark. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

// The byte order mark is kept, as Buffer's UTF-8 decoding keeps it: the core judges it.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The encoding an XML declaration at the start of these bytes names (read as ASCII). */
function declaredEncodingOfBytes(bytes: Buffer): string | undefined {
  if (bytes[0] !== 0x3c || bytes[1] !== 0x3f) return undefined;
  const end = bytes.indexOf('?>');
  if (end < 0 || end > 256) return undefined;
  return /^<\?xml\s[^>]*?encoding\s*=\s*(["'])([^"']*)\1/.exec(bytes.subarray(0, end).toString('latin1'))?.[2];
}

/**
 * A decoder for an 8-bit encoding a label names (ISO-8859-1, windows-1252...); undefined for any
 * other. ISO-8859-1 and windows-1252 are read by exact tables, the same on every Node.js line.
 */
function eightBitDecoder(label: string | undefined): ((bytes: Buffer) => string) | undefined {
  if (!label) return undefined;
  const table = eightBitTableOf(label);
  if (table) return (bytes) => decodeEightBit(bytes, table);
  try {
    const decoder = new TextDecoder(label.trim().toLowerCase());
    return /^utf-/.test(decoder.encoding) ? undefined : (bytes) => decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Bytes as text, as a strict parser reads them: UTF-16 behind its byte order mark (the mark is
 * kept, so the text is half as long as the bytes and the core can tell that they were UTF-16);
 * UTF-8 when they are UTF-8; else the 8-bit encoding that the XML declaration, or failing one
 * the charset of `contentType`, names (ISO-8859-1 text keeps one character a byte, which is how
 * the core tells it later); else UTF-8 with U+FFFD for what does not decode.
 */
export function decodeText(bytes: Buffer, contentType?: string): string {
  const first = bytes[0];
  if ((first === 0xff && bytes[1] === 0xfe) || (first === 0xfe && bytes[1] === 0xff)) {
    if (bytes.length % 2 === 0) {
      if (first === 0xff) return bytes.toString('utf16le');
      return Buffer.from(bytes).swap16().toString('utf16le');
    }
  }
  let text: string | undefined;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    const decoder =
      eightBitDecoder(declaredEncodingOfBytes(bytes)) ?? eightBitDecoder(mediaParam(contentType, 'charset'));
    if (decoder) return decoder(bytes);
  }
  return text ?? bytes.toString('utf8');
}

/**
 * `decodeText` of bytes held as pieces, without joining them first when they are UTF-8, as nearly
 * every body is: a body read from the network comes in many pieces, and the joined copy of a
 * large one costs as much memory again as the body itself. Anything else is read whole.
 */
export function decodeTextOfPieces(pieces: readonly Buffer[], contentType?: string): string {
  const first = pieces[0];
  if (pieces.length === 1 && first) return decodeText(first, contentType);
  const utf16Mark =
    first !== undefined && ((first[0] === 0xff && first[1] === 0xfe) || (first[0] === 0xfe && first[1] === 0xff));
  if (first !== undefined && first.length >= 2 && !utf16Mark) {
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    try {
      let text = '';
      for (const piece of pieces) text += decoder.decode(piece, { stream: true });
      return text + decoder.decode();
    } catch {
      // Not UTF-8: read whole, as decodeText reads it.
    }
  }
  return decodeText(Buffer.concat(pieces), contentType);
}

/** Whether text read from `bytes` keeps one character a byte and reads back to them as Latin-1. */
function isLatin1Reading(text: string, bytes: Buffer): boolean {
  return text.length === bytes.length && Buffer.from(text, 'latin1').equals(bytes);
}

/**
 * Text back to bytes the way `decodeText` read `original`: UTF-16 of the same byte order, UTF-8,
 * or one byte a character. Undefined when `original` was not faithfully read (bytes that are not
 * UTF-8, or 8-bit ones whose characters Latin-1 does not write back).
 */
export function encodeTextLike(text: string, original: Buffer, originalText: string): Buffer | undefined {
  const first = original[0];
  const utf16 = originalText.charCodeAt(0) === 0xfeff && original.length === 2 * originalText.length;
  if (utf16 && first === 0xff) return Buffer.from(text, 'utf16le');
  if (utf16 && first === 0xfe) return Buffer.from(text, 'utf16le').swap16();
  if (Buffer.byteLength(originalText) === original.length) return Buffer.from(text);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Latin-1 is exactly this range
  if (isLatin1Reading(originalText, original) && /^[\u0000-\u00ff]*$/.test(text)) return Buffer.from(text, 'latin1');
  // Read by the windows-1252 table: written back by it.
  if (originalText.length === original.length && encodeWindows1252(originalText)?.equals(original))
    return encodeWindows1252(text);
  return undefined;
}

/**
 * The whole body as text, or undefined when it was not held whole. Bytes are decoded as
 * `decodeText` decodes them, by their declaration or by `contentType`'s charset.
 */
export function bodyText(body: RecordedBody | undefined, contentType?: string): string | undefined {
  if (!body) return undefined;
  if (body.text !== undefined) return body.text;
  if (body.base64 !== undefined) return decodeText(Buffer.from(body.base64, 'base64'), contentType);
  return undefined;
}

/** An absolute http(s) URL with a plain host, a port and a path a URL parser would leave as they are. */
const PLAIN_URL = /^https?:\/\/[A-Za-z0-9.-]+(?::(\d{1,5}))?(\/[A-Za-z0-9\-._~!$&()*+,;=:@/]*)(?:[?#]|$)/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** Whether a port read by a shortcut is one the URL parser takes (it refuses any above 65535). */
export function portInRange(port: string | undefined): boolean {
  return port === undefined || Number(port) <= 65535;
}

/** The URL's path; plain absolute URLs (all the proxy records) are read without a URL parser. */
function pathnameOf(url: string): string | undefined {
  const plain = PLAIN_URL.exec(url);
  const path = plain?.[2];
  if (path !== undefined && portInRange(plain?.[1]) && !DOT_SEGMENT.test(path)) return path;
  try {
    return new URL(url, 'http://relative.invalid').pathname;
  } catch {
    return undefined;
  }
}

export type Endpoint =
  | { kind: 'checkout'; code: string; key: string }
  | { kind: 'upload'; code: string; key: string }
  | { kind: 'other' };

/**
 * Which endpoint a URL addresses. Codes are opaque, so only the last two path segments are read:
 * `.../checkout/{code}` and `.../files/{code}` under whatever base the service has.
 */
function lastTwoSegments(path: string): [string | undefined, string | undefined] {
  // Empty segments ("//", a trailing "/") are skipped, as a server routing the path would.
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end -= 1;
  if (end === 0) return [undefined, undefined];
  const codeStart = path.lastIndexOf('/', end - 1) + 1;
  let parentEnd = codeStart - 1;
  while (parentEnd > 0 && path[parentEnd - 1] === '/') parentEnd -= 1;
  const parent =
    parentEnd > 0 ? path.slice(path.lastIndexOf('/', parentEnd - 1) + 1, parentEnd).toLowerCase() : undefined;
  return [parent, path.slice(codeStart, end)];
}

export const endpointOf: (url: string) => Readonly<Endpoint> = perUrl(readEndpoint);

function readEndpoint(url: string): Endpoint {
  const path = pathnameOf(url);
  if (path === undefined) return { kind: 'other' };
  const [parent, code] = lastTwoSegments(path);
  if (!code) return { kind: 'other' };
  if (parent === 'checkout') return { kind: 'checkout', code, key: path };
  if (parent === 'files') return { kind: 'upload', code, key: path };
  return { kind: 'other' };
}
