import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService } from '../../src/reference/service.js';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { setUpWithShortReturnUrl } from '../helpers/proxy-fixture.js';

// --reporter github on every command that judges: one annotation per rule that fails the run
// (error) or warns (warning), its properties escaped as the runner reads them, and the Markdown
// summary appended to $GITHUB_STEP_SUMMARY.

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-github-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const good =
  '{"amount": 1.0, "status": "Open", "paymentUrl": "https://p.test/x", "returnUrl": "https://r.test/", "billing": {"address": {"country": "NL"}}}';
const line = (code: string, body: string) =>
  JSON.stringify({
    request: { method: 'GET', url: `http://s.test/v2/checkout/${code}`, headers: { accept: 'application/json' } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { text: body } },
  });

describe('--reporter github', () => {
  it('validate names the recording and line, escaping : , and % in the file property', async () => {
    const name = 'a,b:c%.ndjson';
    writeFileSync(
      join(folder, name),
      [line('a', good), line('b', good.replace('"amount": 1.0', '"amount": "one"'))].join('\n'),
    );
    const summary = join(folder, 'validate-summary.md');
    const result = await runCli(['validate', name, '--report-dir', 'r-validate', '--reporter', 'github'], {
      cwd: folder,
      env: { GITHUB_STEP_SUMMARY: summary },
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(
      /^::error file=a%2Cb%3Ac%25\.ndjson,line=2,title=print-conformance checkout\.get\.shape::response: .*%0AGET http:\/\/s\.test\/v2\/checkout\/b → 200$/m,
    );
    expect(readFileSync(summary, 'utf8')).toContain('checkout.get.shape');

    const merged = await runCli(
      ['merge', join('r-validate', 'results.json'), '--report-dir', 'r-merge', '--reporter', 'github'],
      { cwd: folder, env: { GITHUB_STEP_SUMMARY: join(folder, 'merge-summary.md') } },
    );
    expect(merged.code, merged.stderr).toBe(1);
    expect(merged.stdout).toMatch(/^::error title=print-conformance checkout\.get\.shape::/m);
    expect(readFileSync(join(folder, 'merge-summary.md'), 'utf8')).toContain('checkout.get.shape');
  });

  it('proxy prints the annotations when the session ends and appends the job summary', async () => {
    const service = await startReferenceService();
    try {
      const summary = join(folder, 'proxy-summary.md');
      writeFileSync(summary, '# earlier step\n');
      const proxy = await startListeningCli(
        ['proxy', '--target', service.baseUrl, '--report-dir', join(folder, 'r-proxy'), '--reporter', 'github'],
        { env: { GITHUB_STEP_SUMMARY: summary } },
      );
      await (await setUpWithShortReturnUrl(proxy.url)).text();
      const { code, stdout } = await proxy.stop();
      expect(code).toBe(1);
      expect(stdout).toMatch(/^::error title=print-conformance checkout\.return-url\.length::request: .*%0APOST http/m);
      const markdown = readFileSync(summary, 'utf8');
      expect(markdown.startsWith('# earlier step\n')).toBe(true);
      expect(markdown).toContain('checkout.return-url.length');
    } finally {
      await service.close();
    }
  });

  it('proxy prints none without it', async () => {
    const service = await startReferenceService();
    try {
      const proxy = await startListeningCli([
        'proxy',
        '--target',
        service.baseUrl,
        '--report-dir',
        join(folder, 'r-p2'),
      ]);
      await (await setUpWithShortReturnUrl(proxy.url)).text();
      const { code, stdout } = await proxy.stop();
      expect(code).toBe(1);
      expect(stdout).not.toMatch(/^::/m);
    } finally {
      await service.close();
    }
  });
});
