import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exchange } from './synthetic-exchanges.js';

// `validate` over recordings far larger than memory should be: a 2 GiB NDJSON recording, a 2 GiB
// HAR file (pretty-printed, as browsers export it) and one NDJSON line of 400 MB (a body recorded
// whole). Each is generated under the system's temporary folder, judged once under
// /usr/bin/time -v for its peak resident memory and wall time, and deleted.
//
//   npx tsx bench/large-recordings.ts [GiB of the large files, default 2] [MB of the line, default 400]

const BIN = join(import.meta.dirname, '..', 'bin', 'print-conformance.js');
const GiB = 1024 ** 3;

async function writeUntil(file: string, bytes: number, head: string, item: (index: number) => string, tail: string) {
  const out = createWriteStream(file);
  out.write(head);
  let written = head.length;
  for (let index = 0; written < bytes; index += 1) {
    const text = item(index);
    written += text.length;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end(tail);
  await once(out, 'finish');
}

const pairs = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));

/** An exchange of the throughput bench as a HAR entry, laid out over many lines as browsers write it. */
function harEntry(index: number): string {
  const { request, response } = exchange(index) as {
    request: { method: string; url: string; headers: Record<string, string>; body?: { text?: string } };
    response: { status: number; headers: Record<string, string>; body: { text: string; size: number } };
  };
  const entry = {
    startedDateTime: new Date(1_700_000_000_000 + index).toISOString(),
    time: 3,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      headers: pairs(request.headers),
      ...(request.body?.text !== undefined
        ? { postData: { mimeType: request.headers['content-type'], text: request.body.text } }
        : {}),
    },
    response: {
      status: response.status,
      headers: pairs(response.headers),
      content: { size: response.body.size, mimeType: response.headers['content-type'], text: response.body.text },
    },
  };
  return `${index > 0 ? ',\n' : ''}${JSON.stringify(entry, null, 2)}`;
}

/** One exchange whose recorded request body is `bytes` long: a line far past any read buffer. */
async function writeLongLine(file: string, bytes: number) {
  const out = createWriteStream(file);
  const head = `{"request":{"method":"POST","url":"http://127.0.0.1:8080/v2/checkout/c1","headers":{"content-type":"application/json"},"body":{"size":${bytes},"text":"`;
  out.write(head);
  const piece = 'a'.repeat(1024 * 1024);
  for (let left = bytes; left > 0; left -= piece.length)
    if (!out.write(left >= piece.length ? piece : piece.slice(0, left))) await once(out, 'drain');
  out.end(
    '"}},"response":{"status":400,"headers":{"content-type":"application/json"},"body":{"text":"{}","size":2}}}\n',
  );
  await once(out, 'finish');
}

function judged(file: string, reports: string) {
  const run = spawnSync('/usr/bin/time', ['-v', process.execPath, BIN, 'validate', file, '--report-dir', reports], {
    encoding: 'utf8',
  });
  const field = (name: string) => new RegExp(`${name}: (.+)`).exec(run.stderr)?.[1]?.trim();
  const [minutes, seconds] = (field('Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\)') ?? '0:0').split(':');
  return {
    exit: run.status,
    read: /(\d+) exchanges read[^\n]*/.exec(run.stderr)?.[0],
    peakRssMiB: Math.round(Number(field('Maximum resident set size \\(kbytes\\)')) / 1024),
    seconds: Number((Number(minutes) * 60 + Number(seconds)).toFixed(1)),
  };
}

const large = Number(process.argv[2] ?? 2) * GiB;
const line = Number(process.argv[3] ?? 400) * 1e6;
const folder = mkdtempSync(join(tmpdir(), 'print-conformance-large-'));
try {
  const cases: [string, (file: string) => Promise<void>][] = [
    ['ndjson', (file) => writeUntil(file, large, '', (i) => `${JSON.stringify(exchange(i))}\n`, '')],
    [
      'har',
      (file) =>
        writeUntil(
          file,
          large,
          '{\n  "log": {\n    "version": "1.2",\n    "creator": {"name": "bench", "version": "1"},\n    "entries": [\n',
          harEntry,
          '\n    ]\n  }\n}\n',
        ),
    ],
    ['line', (file) => writeLongLine(file, line)],
  ];
  for (const [name, write] of cases) {
    const file = join(folder, `${name}.${name === 'har' ? 'har' : 'ndjson'}`);
    process.stderr.write(`${name}: writing…\n`);
    await write(file);
    const size = statSync(file).size;
    process.stderr.write(`${name}: ${(size / GiB).toFixed(2)} GiB, judging…\n`);
    console.log(JSON.stringify({ name, bytes: size, ...judged(file, join(folder, 'reports')) }));
    rmSync(file);
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
