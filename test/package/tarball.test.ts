import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const run = promisify(execFile);

// What a user gets from the registry: the packed tarball, installed into an empty folder.
describe('the packed tarball', () => {
  it('holds the compiled CLI, suites, proxy and schemas only, and runs the suite green and reports from an empty folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-pack-'));
    try {
      // --ignore-scripts: packing runs `prepare` (the build) otherwise, rewriting dist/ file by file
      // while the other test files' CLIs load it, which then fail to link a half-written module.
      // The tests run after the build (pretest), so dist/ is what gets packed either way.
      const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], {
        cwd: ROOT,
      });
      const [pack] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
      const paths = pack.files.map((f) => f.path);
      expect(paths).toContain('bin/print-conformance.js');
      expect(paths).toContain('dist/suites/index.js');
      expect(paths).toContain('schemas/checkout.json');
      expect(paths.filter((p) => /^(src|test|bench|suites|proxy)\//.test(p))).toEqual([]);

      const project = join(folder, 'user');
      await run('mkdir', ['-p', project]);
      writeFileSync(join(project, 'package.json'), '{"name":"user","private":true}');
      copyFileSync(join(folder, pack.filename), join(project, pack.filename));
      // Exactly as a user types it: a ./relative tarball path.
      const result = await run('npx', ['--yes', `./${pack.filename}`, '--quiet'], {
        cwd: project,
        timeout: 240_000,
      }).catch((error) => {
        throw new Error(`npx failed: ${error.stderr}`);
      });
      expect(result.stdout).toMatch(/\d+ passed, 0 failed, 0 warnings, 0 untested, \d+ skipped/);
      const results = JSON.parse(readFileSync(join(project, 'reports', 'results.json'), 'utf8'));
      expect(results.summary.failed).toBe(0);
      expect(readdirSync(join(project, 'reports'))).toEqual(
        expect.arrayContaining(['results.json', 'junit.xml', 'allure-results']),
      );
      // The HTML report's generator comes with the package too.
      const report = await run('npx', ['--yes', `./${pack.filename}`, 'report'], { cwd: project, timeout: 120_000 });
      expect(report.stdout).toBe(`report written to ${join(project, 'reports', 'allure-report', 'index.html')}\n`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 300_000);
});
