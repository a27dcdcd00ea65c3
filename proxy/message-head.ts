import { STATUS_CODES } from 'node:http';
import type { Headers } from '../src/validate/exchange.js';

// Heads as the proxy reads and writes them: field lists kept in the order and spelling they came
// in, and written back as text. Fields that belong to one connection (hop by hop) never cross
// the proxy; it frames every body it forwards itself.

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Field names (lower case) to one value each, repeated fields joined with ", ", as recorded. The
 * record has no prototype: a field named "constructor" or "__proto__" is a field like any other.
 */
export function headerRecord(rawHeaders: string[]): Headers {
  const record: Headers = Object.create(null);
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    const value = rawHeaders[index + 1] as string;
    const before = record[name];
    record[name] = before === undefined ? value : `${before}, ${value}`;
  }
  return record;
}

/** The values of every field of one name (lower case), in the order they came. */
export function fieldValues(rawHeaders: string[], lowerName: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < rawHeaders.length; index += 2)
    if ((rawHeaders[index] as string).toLowerCase() === lowerName) values.push(rawHeaders[index + 1] as string);
  return values;
}

/** Whether a body is sent in chunks: the last transfer coding is "chunked". */
export function isChunked(headers: Headers): boolean {
  const codings = headers['transfer-encoding'];
  return codings !== undefined && /(?:^|,)\s*chunked\s*$/i.test(codings);
}

/**
 * Fields a head names in Connection besides close and keep-alive: they belong to that connection
 * alone and are not passed on (RFC 9110 §7.6.1). Undefined when there are none (nearly always).
 */
function namedInConnection(rawHeaders: string[]): Set<string> | undefined {
  let named: Set<string> | undefined;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (name.length !== 10 || name.toLowerCase() !== 'connection') continue;
    const value = rawHeaders[index + 1] as string;
    // Nearly always one of these: nothing to split.
    if (value.length <= 10 && /^(?:keep-alive|close)$/i.test(value)) continue;
    for (const option of value.split(',')) {
      const lower = option.trim().toLowerCase();
      if (lower === '' || lower === 'close' || lower === 'keep-alive') continue;
      named ??= new Set();
      named.add(lower);
    }
  }
  return named;
}

/**
 * The fields of a head to pass on: all but hop-by-hop ones, those its Connection field names and
 * those named in `drop` (lower case), written as "name: value\r\n" lines.
 */
export function forwardedFields(rawHeaders: string[], drop: ReadonlySet<string>): string {
  const named = namedInConnection(rawHeaders);
  let lines = '';
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || drop.has(lower) || named?.has(lower)) continue;
    lines += `${name}: ${rawHeaders[index + 1]}\r\n`;
  }
  return lines;
}

/** A response head the proxy writes itself. */
export function statusLine(status: number, reason = STATUS_CODES[status] ?? ''): string {
  return `HTTP/1.1 ${status} ${reason}\r\n`;
}

/** Lines for fields given as a record; CR and LF in values can never split a field. */
export function fieldLines(fields: Record<string, string>): string {
  let lines = '';
  for (const [name, value] of Object.entries(fields)) lines += `${name}: ${value.replace(/[\r\n]/g, '')}\r\n`;
  return lines;
}

/** One chunk of chunked transfer coding, as the pieces to write. */
export function chunkFrame(chunk: Buffer): [string, Buffer, string] {
  return [`${chunk.length.toString(16)}\r\n`, chunk, '\r\n'];
}

export const LAST_CHUNK = '0\r\n\r\n';
