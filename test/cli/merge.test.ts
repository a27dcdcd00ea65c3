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
    const merged = await runCli([
      'merge',
      join(folder, 'r-one', 'results.json'),
      join(folder, 'r-two', 'results.json'),
      '--report-dir',
      join(folder, 'r-merged'),
    ]);
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
});
