import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

// Content codings (RFC 9110 §8.4) as clients undo them before they read a body: gzip, deflate and
// br, one over the other when several are named. Every face decodes with this one reading, so a
// body that does not decode as its Content-Encoding names is failed alike in run, proxy and validate.

/** The codings a Content-Encoding names that change the bytes, in the order they were applied. */
export function contentCodings(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/**
 * Decodes a body in the content codings named, the last applied first; undefined for a coding it
 * does not know. "deflate" is read as zlib, as the RFC says, or else as raw deflate, as ASP.NET
 * Core and browsers do. Output past `limit` throws a RangeError; bytes that are not what a coding
 * names throw the decoder's error.
 */
export function decodeContent(bytes: Buffer, codings: string, limit: number): Buffer | undefined {
  const options = { maxOutputLength: limit };
  let out = bytes;
  const list = contentCodings(codings);
  for (let index = list.length - 1; index >= 0; index -= 1) {
    const coding = list[index];
    if (coding === 'gzip' || coding === 'x-gzip') out = gunzipSync(out, options);
    else if (coding === 'br') out = brotliDecompressSync(out, options);
    else if (coding === 'deflate') {
      try {
        out = inflateSync(out, options);
      } catch (error) {
        if (error instanceof RangeError) throw error;
        out = inflateRawSync(out, options);
      }
    } else return undefined;
  }
  return out;
}

/** Over the decoding limit: zlib's error for output past maxOutputLength. */
export function decodedTooLarge(error: unknown): boolean {
  return error instanceof RangeError || (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
}

/** What a body that does not decode as its coding is recorded with: the coding and the decoder's word. */
export function codingErrorText(codings: string, error: unknown): string {
  return `it does not decode as ${codings.trim()} (${(error as Error).message})`;
}
