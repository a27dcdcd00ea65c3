import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// Results of parts of one recording's traffic, merged, give the verdicts of one run over all of it.

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-merge-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const line = (code: string, status: number, body: string, accept = 'application/json') =>
  JSON.stringify({
    request: { method: 'GET', url: `http://s.test/v2/checkout/${code}`, headers: { accept } },
    response: {
      status,
      headers: { 'content-type': accept },
      body: { text: body, size: body.length },
    },
  });

const good =
  '{"amount": 1.0, "status": "Open", "paymentUrl": "https://p.test/x", "returnUrl": "https://r.test/", "billing": {"address": {"country": "NL"}}}';

/** `merge` of the results.json of the report folders `parts`, into the report folder `into`. */
function mergeInto(into: string, ...parts: string[]) {
  return runCli([
    'merge',
    ...parts.map((part) => join(folder, part, 'results.json')),
    '--report-dir',
    join(folder, into),
  ]);
}

describe('print-conformance merge', () => {
  it('merges results of parts of the traffic into the verdicts of the whole, with the same exit code', async () => {
    const first = [line('a', 200, good), line('b', 500, '{}')];
    const second = [line('c', 200, good.replace('"Open"', '"Weird"')), line('d', 200, good)];
    writeFileSync(join(folder, 'all.ndjson'), [...first, ...second].join('\n'));
    writeFileSync(join(folder, 'one.ndjson'), first.join('\n'));
    writeFileSync(join(folder, 'two.ndjson'), second.join('\n'));
    const args = ['--only', 'checkout.,http.', '--format', 'json'];
    const whole = await runCli([
      'validate',
      join(folder, 'all.ndjson'),
      '--report-dir',
      join(folder, 'r-all'),
      ...args,
    ]);
    for (const part of ['one', 'two'])
      await runCli(['validate', join(folder, `${part}.ndjson`), '--report-dir', join(folder, `r-${part}`), ...args]);
    const merged = await mergeInto('r-merged', 'r-one', 'r-two');
    expect(merged.code, merged.stderr).toBe(whole.code);
    const verdicts = (dir: string) => {
      const json = JSON.parse(readFileSync(join(folder, dir, 'results.json'), 'utf8'));
      return {
        summary: json.summary,
        exchanges: json.exchanges,
        rules: json.rules.map((r: { id: string; status: string; evidence: number; reason?: string }) => [
          r.id,
          r.status,
          r.evidence,
          r.reason,
        ]),
      };
    };
    expect(verdicts('r-merged')).toEqual(verdicts('r-all'));
    expect(verdicts('r-merged').summary.failed).toBeGreaterThan(0);
  });

  it('refuses results made with different options, and files that are no results, in one line', async () => {
    writeFileSync(join(folder, 'x.ndjson'), line('a', 200, '{}'));
    await runCli(['validate', join(folder, 'x.ndjson'), '--report-dir', join(folder, 'r-x1')]);
    await runCli(['validate', join(folder, 'x.ndjson'), '--report-dir', join(folder, 'r-x2'), '--strict']);
    const mixed = await runCli(['merge', join(folder, 'r-x1', 'results.json'), join(folder, 'r-x2', 'results.json')]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/not shards of one run\n$/);
    const notResults = await runCli(['merge', join(folder, 'x.ndjson')]);
    expect(notResults.code).toBe(2);
    expect(notResults.stderr).toMatch(/is not a results\.json of print-conformance/);
  });

  it('refuses the results of a run of the suite, which no set of shards can stand for', async () => {
    const reportDir = join(folder, 'r-run');
    const run = await runCli(['run', '--only', 'http.', '--format', 'json', '--quiet', '--report-dir', reportDir]);
    expect(run.code, run.stderr).toBe(0);
    const merged = await mergeInto('r-run-merged', 'r-run');
    expect(merged.stderr).toMatch(
      /^print-conformance: \S+r-run\/results\.json is the results of a run of the suite, which is whole in itself: merge takes the results\.json that validate \(--shard K\/N\) wrote of parts of one traffic\n$/,
    );
    expect(merged.code).toBe(2);
  });
});

describe('shards (validate --shard K/N, then merge)', () => {
  const bad = good.replace('"amount": 1.0', '"amount": "one"');
  const only = ['--only', 'checkout.get.shape', '--format', 'json'];
  const shardRun = (recording: string, k: number, n: number, dir: string) =>
    runCli(['validate', join(folder, recording), '--shard', `${k}/${n}`, '--report-dir', join(folder, dir), ...only]);
  const results = (dir: string) => JSON.parse(readFileSync(join(folder, dir, 'results.json'), 'utf8'));
  const rule = (dir: string) =>
    results(dir).rules.find((r: { id: string }) => r.id === 'checkout.get.shape') as { status: string };

  it('a shard records which it is and fails only for a failed rule; what it could not test is left to merge', async () => {
    writeFileSync(join(folder, 'good.ndjson'), [line('a', 200, good)].join('\n'));
    const shards = [await shardRun('good.ndjson', 1, 2, 'g-1'), await shardRun('good.ndjson', 2, 2, 'g-2')];
    // One shard holds the checkout and passes; the other holds nothing of it, and is not red for that.
    expect(shards.map((s) => s.code)).toEqual([0, 0]);
    const recordings = [{ name: 'good.ndjson', bytes: line('a', 200, good).length }];
    expect([results('g-1').shard, results('g-2').shard]).toEqual([
      { k: 1, n: 2, recordings },
      { k: 2, n: 2, recordings },
    ]);
    expect([rule('g-1').status, rule('g-2').status].sort()).toEqual(['passed', 'untested']);
    const merged = await mergeInto('g-m', 'g-1', 'g-2');
    expect(merged.code, merged.stderr).toBe(0);
    expect(rule('g-m').status).toBe('passed');
    expect(results('g-m').shard).toBeUndefined();

    writeFileSync(join(folder, 'mixed.ndjson'), [line('a', 200, good), line('b', 200, bad)].join('\n'));
    const whole = await runCli([
      'validate',
      join(folder, 'mixed.ndjson'),
      '--report-dir',
      join(folder, 'x-w'),
      ...only,
    ]);
    const split = [await shardRun('mixed.ndjson', 1, 2, 'x-1'), await shardRun('mixed.ndjson', 2, 2, 'x-2')];
    expect(split.map((s) => s.code).sort()).toEqual([0, 1]);
    const mergedMixed = await mergeInto('x-m', 'x-2', 'x-1');
    expect([whole.code, mergedMixed.code]).toEqual([1, 1]);
    expect(rule('x-m').status).toBe(rule('x-w').status);
  });

  it('merge refuses a set that lacks a shard, holds one twice, or mixes in results that are no shard', async () => {
    const one = join(folder, 'g-1', 'results.json');
    const cases: [string[], RegExp][] = [
      [[one], /^print-conformance: shard 2\/2 is missing \(given: 1\/2\); merge needs every shard's results\.json\n$/],
      [
        [one, one],
        /^print-conformance: shard 1\/2 is given twice \(\S+, \S+\); give each shard's results\.json once\n$/,
      ],
      [
        [one, join(folder, 'x-w', 'results.json')],
        /^print-conformance: \S+x-w\/results\.json is no shard \(validate without --shard\) but \S+ is shard 1\/2/,
      ],
      [
        [join(folder, 'x-w', 'results.json'), join(folder, 'x-w', 'results.json')],
        /are the same results; give each once\n$/,
      ],
    ];
    // Shard 2/2 of another recording: a stale artefact of another run must not pass for this one's.
    writeFileSync(join(folder, 'other.ndjson'), [line('a', 200, good), line('b', 200, good)].join('\n'));
    await shardRun('other.ndjson', 2, 2, 'o-2');
    cases.push([
      [one, join(folder, 'o-2', 'results.json')],
      /^print-conformance: shard 2\/2 \(\S+o-2\/results\.json\) judged other recordings \(other\.ndjson, \d+ bytes\) than shard 1\/2 \(good\.ndjson, \d+ bytes\): merge the shards of one run\n$/,
    ]);
    // A results.json that lost a rule would drop that rule's failures from the whole.
    const cut = JSON.parse(readFileSync(join(folder, 'x-1', 'results.json'), 'utf8'));
    cut.rules = cut.rules.slice(1);
    writeFileSync(join(folder, 'cut.json'), JSON.stringify(cut));
    cases.push([
      [join(folder, 'cut.json'), join(folder, 'x-2', 'results.json')],
      /^print-conformance: \S+cut\.json does not list every rule of the catalog once \(\d+ of \d+\): it was changed or cut; run its shard again\n$/,
    ]);
    // A recording given for results: said what merge takes, not how JSON.parse failed.
    cases.push([
      [join(folder, 'mixed.ndjson')],
      /^print-conformance: \S+mixed\.ndjson is not a results\.json \(it is not one JSON document\): merge takes the results\.json that validate --shard K\/N wrote\n$/,
    ]);
    for (const [files, said] of cases) {
      const result = await runCli(['merge', ...files, '--report-dir', join(folder, 'refused')]);
      expect(result.code, files.join(' ')).toBe(2);
      expect(result.stderr).toMatch(said);
    }
  });
});
