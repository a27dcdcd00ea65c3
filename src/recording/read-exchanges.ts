import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { UsageError } from '../cli/usage-error.js';
import type { Exchange } from '../validate/exchange.js';
import { exchangeOfHarEntry, type HarEntry } from './har.js';

// Reads recorded traffic: NDJSON recordings (one exchange per line, as the proxy writes them) and
// HAR 1.2 files. A line that does not parse is skipped with a warning (a recording cut off by a
// crash has at most a partial last line); a file that cannot be read at all is a usage error.

export interface ReadWarning {
  file: string;
  line?: number;
  message: string;
}

/** HAR is one JSON object with a "log" member; its first bytes tell it from NDJSON. */
function looksLikeHar(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const start = Buffer.alloc(4096);
    const read = readSync(fd, start, 0, start.length, 0);
    return /^\s*\{\s*"log"\s*:/.test(start.subarray(0, read).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

function isExchange(value: unknown): value is Exchange {
  const request = (value as { request?: { method?: unknown; url?: unknown } } | null)?.request;
  return typeof request?.method === 'string' && typeof request.url === 'string';
}

export async function* readExchanges(file: string, warn: (warning: ReadWarning) => void): AsyncGenerator<Exchange> {
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (looksLikeHar(file)) {
    let har: { log?: { entries?: HarEntry[] } };
    try {
      har = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new UsageError(`${file} is not valid HAR: ${(error as Error).message}`);
    }
    if (!Array.isArray(har.log?.entries)) throw new UsageError(`${file} is not valid HAR: log.entries is missing`);
    for (const [index, entry] of har.log.entries.entries()) {
      try {
        yield exchangeOfHarEntry(entry);
      } catch (error) {
        warn({ file, line: index + 1, message: `HAR entry ${index + 1} skipped: ${(error as Error).message}` });
      }
    }
    return;
  }
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const line of lines) {
    number += 1;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      warn({ file, line: number, message: `line ${number} is not JSON (cut off?); skipped` });
      continue;
    }
    if (!isExchange(value)) {
      warn({ file, line: number, message: `line ${number} has no request method and URL; skipped` });
      continue;
    }
    yield value;
  }
}
