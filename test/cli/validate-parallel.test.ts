import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsFor } from '../../src/recording/judge-jobs.js';
import { hashOf, partitionKeyOfLine } from '../../src/recording/line-route.js';
import { partsJudgedHere } from '../../src/recording/worker-judges.js';
import type { Exchange } from '../../src/validate/exchange.js';
import { BIN, runCli } from '../helpers/cli.js';
import { CHECKOUT_URL, checkoutGet, checkoutPost, checkoutResponseJson } from '../helpers/exchanges.js';

// Large recordings are judged over worker threads. Whatever the number of threads, the verdict,
// the counts and the exchanges shown must be those of one thread reading the file in order.

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-parallel-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const at = (exchange: Exchange, code: string): Exchange => ({
  ...exchange,
  request: { ...exchange.request, url: CHECKOUT_URL.replace(/[^/]+$/, code) },
});

/** Many checkouts; every third one is read back with another ReturnUrl than it was set up with. */
function recording(checkouts: number): string {
  const lines: string[] = [];
  const changed = checkoutResponseJson().replace(/"returnUrl": "[^"]*"/, '"returnUrl": "https://elsewhere.test/"');
  for (let index = 0; index < checkouts; index += 1) {
    const code = `c${index}`;
    lines.push(JSON.stringify(at(checkoutPost('json'), code)));
    if (index === 7) lines.push('{"request": {"method": "GET"'); // a line cut off mid-file
    lines.push(JSON.stringify(at(checkoutGet('json', index % 3 === 0 ? changed : undefined), code)));
    if (index % 50 === 0) lines.push(JSON.stringify(at(checkoutGet('json', '{}', 500), code)));
  }
  return `${lines.join('\n')}\n{"request": {"method": "POST", "url": "http://s.te`;
}

const comparable = (file: string) => {
  const result = JSON.parse(readFileSync(file, 'utf8'));
  delete result.durationMs;
  delete result.startedAt;
  return result;
};

/** Judges the file on 1 and on 2 threads and expects the same verdict, results and output. */
async function expectAlikeOnOneAndTwoThreads(file: string, name: string): Promise<void> {
  const [one, two] = await Promise.all(
    ['1', '2'].map(async (jobs) => {
      const reports = join(folder, `${name}-${jobs}`);
      const outcome = await runCli(['validate', file, '--jobs', jobs, '--report-dir', reports]);
      return { ...outcome, result: comparable(join(reports, 'results.json')) };
    }),
  );
  expect(one?.code).toBe(1);
  expect(one?.result.exchanges).toBeGreaterThan(600);
  // The same results.json, byte for byte: keys in the same order too, so that reports diff cleanly.
  expect(JSON.stringify(two?.result)).toBe(JSON.stringify(one?.result));
  expect(two?.stderr).toBe(one?.stderr);
}

describe('validate over worker threads', () => {
  it('judges on threads only recordings large enough to repay starting them, one per core up to four', () => {
    const MiB = 1024 * 1024;
    // On two cores a worker shares them with this thread and the compiler: one thread is faster up to ~120 MiB.
    expect(jobsFor(undefined, 96 * MiB, 2)).toBe(1);
    expect(jobsFor(undefined, 128 * MiB, 2)).toBe(2);
    expect(jobsFor(undefined, 48 * MiB, 8)).toBe(4);
    expect(jobsFor(undefined, 8 * MiB, 8)).toBe(1);
    // Standard input has no size; --jobs wins over any size.
    expect(jobsFor(undefined, undefined, 8)).toBe(1);
    expect(jobsFor(3, 1, 2)).toBe(3);
  });

  it('reads the partition key from a recorded line without parsing it', () => {
    expect(partitionKeyOfLine('{"request":{"method":"GET","url":"https://s.test/v2/checkout/Ab9?x=1#y"}}')).toBe('Ab9');
    expect(partitionKeyOfLine('{"request":{"url" : "https://s.test/v2/files/Zz/"}}')).toBe('Zz');
    expect(partitionKeyOfLine('{"no":"url"}')).toBe('');
  });

  it('gives the same verdict, counts, shown exchanges and warnings with 1, 2 and 3 threads', async () => {
    const file = join(folder, 'large.ndjson');
    writeFileSync(file, recording(600));
    const outcomes = [];
    for (const jobs of ['1', '2', '3']) {
      const reports = join(folder, `r${jobs}`);
      const outcome = await runCli(['validate', file, '--jobs', jobs, '--report-dir', reports]);
      outcomes.push({ ...outcome, result: comparable(join(reports, 'results.json')) });
    }
    const [one, ...more] = outcomes;
    expect(one?.code).toBe(1);
    const consistent = one?.result.rules.find((r: { id: string }) => r.id === 'checkout.get.consistent');
    // 200 checkouts read back changed: 50 shown, the rest counted.
    expect(consistent.status).toBe('failed');
    expect(consistent.failures).toHaveLength(50);
    expect(consistent.moreFailures).toBe(150);
    expect(one?.stderr).toContain('line 17 is not JSON (cut off?); skipped');
    expect(one?.stderr).toMatch(/line 1\d{3} is not JSON \(cut off\?\); skipped/);
    for (const other of more) {
      expect(other.code).toBe(one?.code);
      expect(JSON.stringify(other.result)).toBe(JSON.stringify(one?.result));
      expect(other.stderr).toBe(one?.stderr);
    }
  });

  it('writes the same results.json byte for byte on 1 and 2 threads, whatever judge saw a kind first', async () => {
    // The first line is a GET of a checkout that falls to the worker; the reading thread's own
    // first lines are POSTs. Kept in the order each judge met them, the kinds would come out
    // GET first from one thread and POST first from two.
    const toWorker = Array.from({ length: 100 }, (_, index) => `w${index}`).find(
      (code) => hashOf(code) % 1000 >= partsJudgedHere(1),
    ) as string;
    const file = join(folder, 'ordered.ndjson');
    writeFileSync(file, `${JSON.stringify(at(checkoutGet('json'), toWorker))}\n${recording(400)}`);
    await expectAlikeOnOneAndTwoThreads(file, 'ordered');
  });

  it('judges lines spelt otherwise (spaces in a member, CRLF, blank lines, a byte order mark) alike on 1 and 2 threads', async () => {
    const file = join(folder, 'spelt.ndjson');
    const lines = recording(300)
      .split('\n')
      .map((line, index) => (index % 4 === 1 ? line.replace('"url":', '"url" : ') : line));
    writeFileSync(file, `\uFEFF${lines.join('\r\n\n  \r\n')}`);
    await expectAlikeOnOneAndTwoThreads(file, 'spelt');
  });

  it('judges a HAR alike on 1 and 2 threads', async () => {
    const file = join(folder, 'large.har');
    const entries = recording(300)
      .split('\n')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Exchange];
        } catch {
          return [];
        }
      })
      .map((e) => ({
        startedDateTime: e.startedAt,
        time: e.durationMs ?? 1,
        request: {
          method: e.request.method,
          url: e.request.url,
          httpVersion: 'HTTP/1.1',
          headers: Object.entries(e.request.headers).map(([name, value]) => ({ name, value })),
          ...(e.request.body?.text
            ? { postData: { mimeType: e.request.headers['content-type'], text: e.request.body.text } }
            : {}),
        },
        response: {
          status: e.response?.status,
          headers: Object.entries(e.response?.headers ?? {}).map(([name, value]) => ({ name, value })),
          content: {
            size: e.response?.body?.size,
            mimeType: e.response?.headers['content-type'],
            text: e.response?.body?.text,
          },
        },
      }));
    writeFileSync(file, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
    await expectAlikeOnOneAndTwoThreads(file, 'har');
  });

  it('refuses a --jobs that is not a whole number, in one line', async () => {
    const outcome = await runCli(['validate', join(folder, 'large.ndjson'), '--jobs', '1.5']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^print-conformance: --jobs must be a whole number/);
  });

  it('refuses, at once and in one line, more threads than the cores can use, and a --jobs without a number', async () => {
    const file = join(folder, 'few.ndjson');
    writeFileSync(file, recording(5));
    // A thousand threads would take gigabytes and minutes to start before judging a line.
    const many = await runCli(['validate', file, '--jobs', '1000'], { timeoutMs: 20_000 });
    expect([many.code, many.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(many.stderr).toMatch(
      /^print-conformance: --jobs 1000 is more threads than \d+ cores can use; give at most \d+/,
    );
    const none = await runCli(['validate', file, '--jobs']);
    expect([none.code, none.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(none.stderr).toMatch(/jobs/);
  });

  it('tells shards read from standard input apart by what they read: shards of other inputs are not merged', async () => {
    const shardOfInput = (text: string, shard: string, name: string) => {
      const run = spawnSync(
        process.execPath,
        [BIN, 'validate', '-', '--shard', shard, '--report-dir', join(folder, name)],
        {
          input: text,
          encoding: 'utf8',
        },
      );
      expect([0, 1]).toContain(run.status);
      return join(folder, name, 'results.json');
    };
    const first = shardOfInput(recording(200), '1/2', 'in-a1');
    const second = shardOfInput(recording(200), '2/2', 'in-a2');
    const other = shardOfInput(recording(120), '2/2', 'in-b2');
    const refused = await runCli(['merge', first, other, '--report-dir', join(folder, 'in-mixed')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/judged other recordings \(stdin, \d+ bytes\)/);
    const merged = await runCli(['merge', first, second, '--report-dir', join(folder, 'in-merged')]);
    expect([0, 1]).toContain(merged.code);
  });

  it('gives, split into shards run as separate processes and merged, the verdicts of one run', async () => {
    const file = join(folder, 'sharded.ndjson');
    writeFileSync(file, recording(600));
    const whole = await runCli(['validate', file, '--report-dir', join(folder, 's-whole')]);
    const shards = await Promise.all(
      ['1/3', '2/3', '3/3'].map((shard, index) =>
        runCli(['validate', file, '--shard', shard, '--jobs', '1', '--report-dir', join(folder, `s-${index}`)]),
      ),
    );
    for (const shard of shards) expect([0, 1]).toContain(shard.code);
    expect(shards.map((shard) => /exchanges judged in shard (\d\/3)/.exec(shard.stderr)?.[1])).toEqual([
      '1/3',
      '2/3',
      '3/3',
    ]);
    const merged = await runCli([
      'merge',
      ...[0, 1, 2].map((index) => join(folder, `s-${index}`, 'results.json')),
      '--report-dir',
      join(folder, 's-merged'),
    ]);
    expect(merged.code).toBe(whole.code);
    const one = comparable(join(folder, 's-whole', 'results.json'));
    const all = comparable(join(folder, 's-merged', 'results.json'));
    expect(JSON.stringify(all)).toBe(JSON.stringify(one));
    // Each shard judged a part, and no exchange was judged twice.
    const parts = [0, 1, 2].map((index) => comparable(join(folder, `s-${index}`, 'results.json')).exchanges);
    expect(parts.every((count) => count > 0 && count < one.exchanges)).toBe(true);
    expect(parts.reduce((sum, count) => sum + count, 0)).toBe(one.exchanges);
  });

  it('says a --shard given a negative value was given one, not that an option -1 is unknown', async () => {
    const outcome = await runCli(['validate', join(folder, 'large.ndjson'), '--shard', '-1/2']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe(
      'print-conformance: --shard -1/2 is not taken: a value that starts with "-" reads as an option, and --shard takes no negative value; see --help\n',
    );
  });

  it('refuses a --shard that is not K/N, in one line', async () => {
    const outcome = await runCli(['validate', join(folder, 'large.ndjson'), '--shard', '4/3']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^print-conformance: --shard 4\/3 is not K\/N/);
  });
});
