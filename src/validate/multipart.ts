import type { MultipartPart } from './exchange.js';
import { mediaParam } from './exchange.js';

// Reads the part headers and first bytes of a multipart/form-data body held in memory (the suite's
// and small recorded bodies). The proxy fills the same MultipartPart list while streaming.

const HEAD_BYTES = 64;

function dispositionParam(disposition: string | undefined, name: string): string | undefined {
  return mediaParam(disposition, name);
}

export function multipartParts(body: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const afterDelimiter = at + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString('latin1') === '--') break;
    const headersStart = afterDelimiter + 2; // CRLF after the delimiter line
    const headersEnd = body.indexOf('\r\n\r\n', headersStart);
    if (headersEnd < 0) break;
    const headers: Record<string, string> = {};
    for (const line of body.subarray(headersStart, headersEnd).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const contentStart = headersEnd + 4;
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), contentStart);
    const contentEnd = next < 0 ? body.length : next;
    const disposition = headers['content-disposition'];
    const part: MultipartPart = {
      size: contentEnd - contentStart,
      headBase64: body.subarray(contentStart, Math.min(contentEnd, contentStart + HEAD_BYTES)).toString('base64'),
    };
    const name = dispositionParam(disposition, 'name');
    const filename = dispositionParam(disposition, 'filename');
    if (name !== undefined) part.name = name;
    if (filename !== undefined) part.filename = filename;
    if (headers['content-type']) part.contentType = headers['content-type'];
    parts.push(part);
    if (next < 0) break;
    at = next + 2;
  }
  return parts;
}

/** The part that carries the file: the one with a filename, else the only part with a type. */
export function filePartOf(parts: MultipartPart[]): MultipartPart | undefined {
  return parts.find((part) => part.filename !== undefined) ?? parts.find((part) => part.contentType) ?? parts[0];
}
