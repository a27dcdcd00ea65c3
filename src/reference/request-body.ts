import type { IncomingMessage } from 'node:http';
import { decodeText } from '../validate/exchange.js';
import { HttpError } from './http-error.js';

/** Reads a small (JSON, XML, form) body whole, refusing more than `limit` bytes with 413. */
export async function readSmallBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw new HttpError(413, `request body of ${declared} bytes is over the ${limit}-byte limit`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, `request body is over the ${limit}-byte limit`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Valid UTF-8 or a 400: a body the service cannot read as text is the client's fault. */
export function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'request body is not valid UTF-8', ['Send JSON or XML encoded as UTF-8.']);
  }
}

/**
 * UTF-16 behind its byte order mark, else valid UTF-8 (a UTF-8 BOM is dropped), else, given the
 * Content-Type of an XML body, the 8-bit encoding its declaration or charset names, else a 400.
 */
export function decodeRequestText(bytes: Buffer, xmlContentType?: string): string {
  if (bytes[0] === 0xff || bytes[0] === 0xfe) {
    const text = decodeText(bytes);
    if (text.charCodeAt(0) === 0xfeff) return text;
  }
  if (xmlContentType !== undefined) {
    const text = decodeText(bytes, xmlContentType);
    // Read one character a byte: an 8-bit encoding that the body names.
    if (text.length === bytes.length && !text.includes('\uFFFD')) return text;
  }
  return decodeUtf8(bytes);
}
