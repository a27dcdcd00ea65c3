import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// A results.json given to merge is untrusted: a changed or hostile one is refused in one line
// naming it, never merged into a different outcome, and counts stay exact through a re-merge.

let folder: string;
let failing: string;

const bad =
  '{"amount": "one", "status": "Open", "paymentUrl": "https://p.test/x", "returnUrl": "https://r.test/", "billing": {"address": {"country": "NL"}}}';
const exchange = JSON.stringify({
  request: { method: 'GET', url: 'http://s.test/v2/checkout/a', headers: { accept: 'application/json' } },
  response: { status: 200, headers: { 'content-type': 'application/json' }, body: { text: bad, size: bad.length } },
});

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-merge-hostile-'));
  writeFileSync(join(folder, 'bad.ndjson'), exchange);
  await runCli(['validate', join(folder, 'bad.ndjson'), '--report-dir', join(folder, 'r-bad'), '--format', 'json']);
  failing = readFileSync(join(folder, 'r-bad', 'results.json'), 'utf8');
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function planted(name: string, change: (json: Record<string, any>) => void, text?: string): string {
  const json = JSON.parse(failing);
  change(json);
  const file = join(folder, `${name}.json`);
  writeFileSync(file, text ?? JSON.stringify(json));
  return file;
}

describe('merge of a hostile results.json', () => {
  it('merges the failing run as failing: exit 1', async () => {
    const merged = await runCli(['merge', planted('plain', () => {}), '--report-dir', join(folder, 'r-plain')]);
    expect(merged.code, merged.stderr).toBe(1);
  });

  it('refuses __proto__ under answers or traffic.used in one line naming the file', async () => {
    for (const where of ['answers', 'traffic']) {
      const text = failing.replace(
        where === 'answers' ? /"answers": \{/ : /"used": \{/,
        `"${where === 'answers' ? 'answers' : 'used'}": {"__proto__": {"failsRun": false, "status": "skipped"},`,
      );
      expect(text).toContain('__proto__');
      const file = planted(`proto-${where}`, () => {}, text);
      const merged = await runCli(['merge', file, '--report-dir', join(folder, `r-proto-${where}`)]);
      expect(merged.code, merged.stdout).toBe(2);
      expect(merged.stderr).toMatch(new RegExp(`^print-conformance: ${file}.*__proto__[^\\n]*\\n$`));
    }
  });

  it('refuses a date that is no date, nesting too deep, and counts that are not exact, naming the file', async () => {
    const cases = [
      planted('date', (json) => {
        json.startedAt = 'yesterday-ish';
      }),
      planted(
        'deep',
        () => {},
        failing.replace(/"profile": \{/, `"profile": {"deep": ${'['.repeat(20000)}${']'.repeat(20000)},`),
      ),
      planted('huge', () => {}, failing.replace(/"exchanges": \d+/, '"exchanges": 1e400')),
      planted('fraction', (json) => {
        json.rules[0].formats[0] = { ...json.rules[0].formats[0], evidence: 1.5 };
      }),
    ];
    for (const file of cases) {
      const merged = await runCli(['merge', file, '--report-dir', join(folder, 'r-refused')]);
      expect(merged.code, merged.stderr).toBe(2);
      expect(merged.stderr).toMatch(new RegExp(`^print-conformance: ${file} is not a results\\.json[^\\n]*\\n$`));
    }
  });

  it('keeps large counts exact through a merge and a re-merge', async () => {
    const big = 2 ** 40 + 1;
    const file = planted('big', (json) => {
      json.exchanges = big;
    });
    const once = await runCli(['merge', file, '--report-dir', join(folder, 'r-once')]);
    expect(once.code, once.stderr).toBe(1);
    const again = await runCli([
      'merge',
      join(folder, 'r-once', 'results.json'),
      '--report-dir',
      join(folder, 'r-again'),
    ]);
    expect(again.code, again.stderr).toBe(1);
    expect(JSON.parse(readFileSync(join(folder, 'r-again', 'results.json'), 'utf8')).exchanges).toBe(big);
  });
});
