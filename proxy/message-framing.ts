// How a message's body is framed, read from the fields llhttp framed it by (http-parser.ts runs
// these on every head): the one place the proxy reads framing from header text. Values are taken
// as RFC 9110 §5.5 reads them, optional white space (SP and HTAB) around them and nothing else:
// U+00A0, which JavaScript's trim() strips, llhttp keeps, and the two must agree on every byte.

/**
 * A body with the length given (the value llhttp read, written back as the proxy's own digits),
 * in chunks, running to the end of the connection (answers only), or none.
 */
export type Framing = { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'close' } | { kind: 'none' };

export const NO_BODY_FRAMING: Framing = { kind: 'none' };
export const CHUNKED: Framing = { kind: 'chunked' };
export const TO_CLOSE: Framing = { kind: 'close' };

/** Refusal codes of the proxy's own, besides llhttp's HPE_… (client-refusals.ts gives their status). */
export const UNDECODED_CODING = 'UNDECODED_TRANSFER_CODING';

/** A field value without the optional white space around it: SP and HTAB only (RFC 9110 §5.6.3). */
export function withoutOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start += 1;
  while (end > start && isOws(value.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** A coding name as RFC 9110 §5.6.2 spells a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * What a Transfer-Encoding list says: exactly "chunked"; chunked last over codings the proxy
 * does not decode; or no framing that can be read (an empty element, chunked twice or not last).
 */
function codingsOf(value: string): 'chunked' | 'undecoded' | 'unframed' {
  const codings = value.split(',').map((coding) => withoutOws(coding).toLowerCase());
  if (codings.length === 1 && codings[0] === 'chunked') return 'chunked';
  if (codings.at(-1) !== 'chunked') return 'unframed';
  for (let index = 0; index < codings.length - 1; index += 1) {
    const coding = codings[index] as string;
    if (coding === 'chunked' || !TOKEN.test(coding)) return 'unframed';
  }
  return 'undecoded';
}

/**
 * A request's framing, or the code it is refused with (RFC 9112 §6.3, as nginx and Envoy read it):
 * Transfer-Encoding must be one field that says exactly "chunked" (no empty or repeated one:
 * "chunked" followed by an empty field is framed as chunked by llhttp and read as no coding at all
 * by whoever joins the fields), and never comes with Content-Length; Content-Length must be one
 * field of digits. Codings over chunked that the proxy does not decode get 501 (RFC 9112 §6.1),
 * any other unreadable framing 400.
 */
export function requestFraming(rawHeaders: string[]): Framing | string {
  let transferEncodings = 0;
  let codings: ReturnType<typeof codingsOf> = 'unframed';
  let length = -1;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    // Most fields are neither: told apart by their length before their name is compared.
    if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') {
      transferEncodings += 1;
      codings = codingsOf(rawHeaders[index + 1] as string);
    } else if (name.length === 14 && name.toLowerCase() === 'content-length') {
      const value = withoutOws(rawHeaders[index + 1] as string);
      if (length >= 0 || !/^\d{1,15}$/.test(value)) return 'HPE_INVALID_CONTENT_LENGTH';
      length = Number(value);
    }
  }
  if (transferEncodings > 0) {
    if (transferEncodings > 1 || codings === 'unframed') return 'HPE_INVALID_TRANSFER_ENCODING';
    if (length >= 0) return 'HPE_UNEXPECTED_CONTENT_LENGTH';
    return codings === 'chunked' ? CHUNKED : UNDECODED_CODING;
  }
  return length > 0 ? { kind: 'length', length } : length === 0 ? { kind: 'length', length: 0 } : NO_BODY_FRAMING;
}

/**
 * An answer's framing as llhttp reads it, or UNDECODED_CODING for a Transfer-Encoding other than
 * one "chunked": its bytes would go on without the coding that describes them (the proxy drops
 * Transfer-Encoding and frames what it forwards itself), so such an answer is not passed on.
 */
export function answerFraming(rawHeaders: string[]): Framing | string {
  let codings: string | undefined;
  let length = -1;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    if (name === 'transfer-encoding')
      codings = codings === undefined ? (rawHeaders[index + 1] as string) : `${codings},${rawHeaders[index + 1]}`;
    else if (name === 'content-length') {
      const value = withoutOws(rawHeaders[index + 1] as string);
      if (/^\d{1,15}$/.test(value)) length = Number(value);
    }
  }
  if (codings !== undefined) return codingsOf(codings) === 'chunked' ? CHUNKED : UNDECODED_CODING;
  return length >= 0 ? { kind: 'length', length } : TO_CLOSE;
}
