import type { BodyFormat } from './document.js';

// Whether a body's bytes are in the encoding it names, as a strict parser (libxml2, .NET's
// XmlReader, RFC 8259 JSON) holds them to it. The core sees a body as text plus its size in bytes:
// recorders decode UTF-8 (UTF-16 only behind its byte order mark, an 8-bit encoding only where the
// declaration or charset names one and the bytes are not UTF-8), so the size tells what the bytes
// were: as many bytes as the text's UTF-8 form is UTF-8, twice its length is UTF-16, as many as
// its characters (and fewer than its UTF-8 form) is an 8-bit encoding, and a U+FFFD that the size
// does not account for is a byte the UTF-8 decoder could not read.
// The common body (no BOM, no declared encoding, charset utf-8, no U+FFFD) costs a few reads of
// its first characters and one search the engine answers at once for an ASCII string.

/** What the bytes were, as far as text and size tell. */
type Bytes = 'utf-8' | 'utf-16' | '8-bit' | 'not-utf-8';

/** The encoding families whose bytes the core can tell apart. */
type Family = 'utf-8' | 'utf-16' | 'utf-32' | '8-bit';

interface Encoding {
  /** WHATWG canonical name (utf-16le and utf-16be both as utf-16), or utf-32. */
  name: string;
  family: Family;
}

const known = new Map<string, Encoding | undefined>([['utf-8', { name: 'utf-8', family: 'utf-8' }]]);

/** The encoding a label names; undefined for a label no decoder knows (no verdict is given then). */
function encodingOf(label: string): Encoding | undefined {
  const cached = known.get(label);
  if (cached !== undefined || known.has(label)) return cached;
  const key = label.trim().toLowerCase();
  let encoding: Encoding | undefined;
  if (/^(utf-?32(le|be)?|ucs-?4)$/.test(key)) encoding = { name: 'utf-32', family: 'utf-32' };
  else {
    try {
      const name = new TextDecoder(key).encoding;
      if (name === 'utf-8') encoding = { name, family: 'utf-8' };
      else if (name.startsWith('utf-16')) encoding = { name: 'utf-16', family: 'utf-16' };
      // Every other encoding a decoder knows writes ASCII as ASCII (windows-1252, iso-8859-x, shift_jis...).
      else encoding = { name, family: '8-bit' };
    } catch {
      encoding = undefined;
    }
  }
  // Labels as written are few (utf-8, UTF-8, utf-16...); a hostile stream of new ones is not kept.
  if (known.size < 256) known.set(label, encoding);
  return encoding;
}

/** Whether a label names an 8-bit encoding (ISO-8859-1, windows-1252...) that a decoder knows. */
export function namesEightBitEncoding(label: string | undefined): boolean {
  return label !== undefined && encodingOf(label)?.family === '8-bit';
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

/**
 * The charsets of the Content-Type values seen lately (null: none named): bodies come with the
 * same few values, each read anew by the pattern, and the label found was a new string to look
 * up as well. Bounded in number and length.
 */
const charsets = new Map<string, string | null>();
const CHARSETS_KEPT = 256;
const LONGEST_KEPT = 256;

function charsetOf(contentType: string): string | undefined {
  if (!contentType.includes('=')) return undefined;
  if (contentType.length > LONGEST_KEPT) return CHARSET.exec(contentType)?.[1];
  let charset = charsets.get(contentType);
  if (charset === undefined) {
    charset = CHARSET.exec(contentType)?.[1] ?? null;
    if (charsets.size >= CHARSETS_KEPT) charsets.clear();
    charsets.set(contentType, charset);
  }
  return charset ?? undefined;
}

function bytesOf(text: string, size: number): Bytes {
  const length = text.length;
  // Faithful UTF-16 text (the BOM kept or dropped) is two bytes a unit; UTF-8 text only rarely so.
  if ((size === 2 * length || size === 2 * length + 2) && Buffer.byteLength(text) !== size) return 'utf-16';
  const utf8Size = Buffer.byteLength(text);
  if (text.includes('\uFFFD') && utf8Size !== size) return 'not-utf-8';
  if (utf8Size !== size && length === size) return '8-bit';
  return 'utf-8';
}

const ENCODING_PSEUDO_ATTRIBUTE = /encoding\s*=\s*(["'])([^"']*)\1/y;

/** The encoding an XML declaration names, read only when the text starts with one. */
export function declaredEncoding(text: string): string | undefined {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!text.startsWith('<?xml', start)) return undefined;
  const end = text.indexOf('?>', start);
  if (end < 0) return undefined;
  // Searched for within the declaration only: a declaration without one is the usual case, and
  // the whole body was searched for a word the declaration does not hold.
  const at = text.slice(0, end).indexOf('encoding', start + 5);
  if (at < 0) return undefined;
  ENCODING_PSEUDO_ATTRIBUTE.lastIndex = at;
  return ENCODING_PSEUDO_ATTRIBUTE.exec(text)?.[2];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is exactly this range
const NON_ASCII = /[^\u0000-\u007f]/;

/** What names the encoding, and what comes of naming wide bytes for UTF-8 ones. */
const DECLARATION = { what: 'the XML declaration says encoding', wide: "; libxml2 and .NET's XmlReader refuse it" };
const CHARSET_PARAMETER = {
  what: 'Content-Type says charset',
  wide: '; a client that decodes by it reads other characters',
};

/** Why bytes of this kind are not in `encoding`, or undefined when they may well be. */
function mismatch(
  encoding: Encoding,
  label: string,
  bytes: Bytes,
  text: string,
  source: typeof DECLARATION,
): string | undefined {
  const named = `${source.what} "${label}"`;
  if (bytes === 'utf-8') {
    if (encoding.family === 'utf-16' || encoding.family === 'utf-32')
      return `${named} but the body is UTF-8 (one byte per ASCII character)${source.wide}`;
    if (encoding.family === '8-bit' && NON_ASCII.test(text))
      return `${named} but the body is UTF-8 with non-ASCII characters, which ${label} reads as other characters`;
    return undefined;
  }
  if (bytes === 'utf-16')
    return encoding.family === 'utf-16' ? undefined : `${named} but the body is UTF-16 (two bytes per character)`;
  if (encoding.family === 'utf-8') return `${named} but the body holds bytes that are not UTF-8`;
  // A declaration read as ASCII is one byte a character: whatever the rest is, it is not UTF-16.
  if (encoding.family !== '8-bit' && (bytes === '8-bit' || source === DECLARATION))
    return `${named} but the body is in an 8-bit encoding (one byte per character)${source.wide}`;
  return undefined;
}

/**
 * Why a strict parser would refuse this body's encoding (or read it as other characters), or
 * undefined. `size` is the body's length in bytes; `contentType` its header, charset and all.
 */
export function encodingProblem(
  text: string,
  size: number,
  format: BodyFormat,
  contentType: string | undefined,
): string | undefined {
  const bom = text.charCodeAt(0) === 0xfeff;
  const declared = format === 'xml' ? declaredEncoding(text) : undefined;
  const charset = contentType === undefined ? undefined : charsetOf(contentType);
  const suspect = bom || text.includes('\uFFFD');
  // The usual body: nothing named but UTF-8 and nothing that hints at other bytes.
  if (!suspect && declared === undefined && (charset === undefined || encodingOf(charset)?.family === 'utf-8'))
    return undefined;

  // A NUL beside each ASCII character is UTF-16 without its byte order mark, read one byte a
  // character: whatever a charset or declaration names, the bytes are not UTF-8, so no message may
  // say they are.
  if (!bom && looksLikeBomlessUtf16(text))
    return format === 'json'
      ? 'JSON is UTF-16 without a byte order mark (a NUL byte beside each ASCII character); RFC 8259 requires UTF-8'
      : 'the body is UTF-16 without a byte order mark (a NUL byte beside each ASCII character), which XML 1.0 (4.3.3) requires of UTF-16';
  const bytes = bytesOf(text, size);
  if (format === 'json') {
    if (bytes === 'utf-16') return 'JSON is UTF-16; RFC 8259 requires UTF-8';
    if (bom) return 'JSON starts with a byte order mark; RFC 8259 requires UTF-8 without one';
    if (bytes === 'not-utf-8' || bytes === '8-bit')
      return 'JSON holds bytes that are not UTF-8; RFC 8259 requires UTF-8';
  }

  const fromDeclaration = declared === undefined ? undefined : encodingOf(declared);
  if (declared !== undefined) {
    if (!fromDeclaration) return undefined;
    const problem = mismatch(fromDeclaration, declared, bytes, text, DECLARATION);
    if (problem) return problem;
  }

  const fromCharset = charset === undefined ? undefined : encodingOf(charset);
  // Without a declaration, a charset that names the 8-bit encoding is the document's (RFC 7303).
  if (
    declared === undefined &&
    format === 'xml' &&
    (bytes === 'not-utf-8' || bytes === '8-bit') &&
    fromCharset?.family !== '8-bit'
  ) {
    return 'the body holds bytes that are not UTF-8, and no XML declaration names another encoding';
  }
  if (fromCharset) {
    const problem = mismatch(fromCharset, charset as string, bytes, text, CHARSET_PARAMETER);
    if (problem) return problem;
    if (fromDeclaration && fromDeclaration.name !== fromCharset.name)
      return `Content-Type says charset "${charset}" but the XML declaration says encoding "${declared}"`;
  }
  return undefined;
}

/** A hint for a body that failed to parse: UTF-16 without a byte order mark reads as text with NULs. */
export function looksLikeBomlessUtf16(text: string): boolean {
  return text.charCodeAt(0) === 0 || text.charCodeAt(1) === 0;
}
