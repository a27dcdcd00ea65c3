import { closeSync, openSync, readSync } from 'node:fs';
import { constants, gunzipSync } from 'node:zlib';
import { isPipe } from './read-exchanges.js';

// A recording made by the proxy names its target (each NDJSON line's `target`, the HAR log's
// `_target`): the base the proxy judged the traffic under, so that validate judges it alike
// without --base-url.

/** Bytes read from a recording's start: the first line or the HAR log's head lies within them. */
const HEAD_BYTES = 64 * 1024;

function headOf(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(HEAD_BYTES);
    const read = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    const head = buffer.subarray(0, read);
    // A gzip-compressed recording: its start, decompressed as far as these bytes go.
    if (head[0] === 0x1f && head[1] === 0x8b)
      return gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH }).subarray(0, HEAD_BYTES).toString('utf8');
    return head.toString('utf8');
  } catch {
    // A file that cannot be read is refused by the reading itself, in its own words.
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The target the first recording names, if it was made by the proxy. */
function targetInFile(file: string): string | undefined {
  const head = headOf(file);
  if (head === undefined) return undefined;
  const har = /^\s*\{\s*"log"\s*:\s*\{[^[]*?"_target"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head);
  if (har?.[1]) {
    try {
      return httpUrl(JSON.parse(har[1]));
    } catch {
      return undefined;
    }
  }
  const firstLine = head.split('\n', 1)[0] ?? '';
  if (!firstLine.startsWith('{"target":')) return undefined;
  try {
    return httpUrl((JSON.parse(firstLine) as { target?: unknown }).target);
  } catch {
    return undefined;
  }
}

/** The target the recordings name, when every one of them names the same (one service's traffic). */
export function recordedTarget(files: readonly string[]): string | undefined {
  if (files.length === 0 || files.some(isPipe)) return undefined;
  const targets = new Set(files.map(targetInFile));
  const [only] = targets;
  return targets.size === 1 ? only : undefined;
}
