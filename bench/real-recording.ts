import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startListening, stop } from './start-cli.js';

// A recording shaped like real traffic: the conformance suite's own exchanges with the reference
// service, recorded by print-conformance proxy, then replicated to any number of exchanges. Each
// copy of the session gets fresh checkout, upload and order codes (and exchange IDs), so that
// `validate` follows as many checkouts as a long-running proxy would have seen.

const BIN = join(import.meta.dirname, '..', 'bin', 'print-conformance.js');

/** Runs `print-conformance run` through `print-conformance proxy --record` and returns the NDJSON lines. */
export async function recordSuiteSession(folder: string): Promise<string[]> {
  const file = join(folder, 'session.ndjson');
  const service = await startListening(['serve', '--port', '0']);
  // The suite sends requests that break rules on purpose: the proxy's lines about them are dropped.
  const proxy = await startListening(
    ['proxy', '--target', service.url, '--record', file, '--summary-interval', '0'],
    true,
  );
  try {
    const run = spawnSync(
      process.execPath,
      [BIN, 'run', '--base-url', proxy.url, '--quiet', '--report-dir', join(folder, 'suite-reports')],
      { encoding: 'utf8' },
    );
    if (run.status !== 0)
      throw new Error(`the suite through the proxy exited ${run.status}: ${run.stdout.slice(-600)}`);
  } finally {
    await stop(proxy.child);
    await stop(service.child);
  }
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

/**
 * The codes in a session's URLs (checkouts, uploads, orders), longest first so none is a prefix of
 * another. A code the service made has a digit or a capital in it; a word does not. The suite's
 * set-ups send `http://localhost:8080/checkout/return` as their return URL, and taking `return`
 * for a code rewrote every `returnUrl` member of every copy (`r00001Url`): the judge then read a
 * recording of broken set-ups, not the session.
 */
function codesOf(lines: string[]): string[] {
  const codes = new Set<string>();
  for (const line of lines)
    for (const match of line.matchAll(/\/(?:checkout|files|orders)\/([A-Za-z0-9_-]{6,})/g))
      if (/[A-Z0-9]/.test(match[1] as string)) codes.add(match[1] as string);
  return [...codes].sort((a, b) => b.length - a.length);
}

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Copy `copy` of the session: every code keeps its length (so recorded sizes stay true) and gets
 * its last characters from the copy's number; exchange IDs likewise.
 */
function replicator(lines: string[]): (copy: number) => string {
  const codes = codesOf(lines);
  const pattern = new RegExp(`${codes.map(literally).join('|')}|"id":"[0-9a-f-]{36}"`, 'g');
  const text = `${lines.join('\n')}\n`;
  return (copy) => {
    const mark = copy.toString(36).padStart(5, '0');
    const hex = copy.toString(16).padStart(8, '0');
    return text.replace(pattern, (found) =>
      found.startsWith('"id"') ? `${found.slice(0, -9)}${hex}"` : found.slice(0, -mark.length) + mark,
    );
  };
}

/** Writes `count` exchanges replicated from `lines` to `file`; returns the bytes written. */
export async function writeReplicated(lines: string[], count: number, file: string): Promise<number> {
  const copyOf = replicator(lines);
  const out = createWriteStream(file);
  let bytes = 0;
  let written = 0;
  for (let copy = 0; written < count; copy += 1) {
    let text = copyOf(copy);
    if (written + lines.length > count)
      text = `${text
        .split('\n')
        .slice(0, count - written)
        .join('\n')}\n`;
    written += Math.min(lines.length, count - written);
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}
