import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { HAS_PHP_CURL } from '../helpers/peers.js';

// A PHP suite of two tests behind `proxy -- COMMAND`, each marked through the control API: the
// API fails the test that sent the bad request and that one alone, and the session's reports hold
// one case per client test.

let folder: string;
let service: ReferenceService;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-client-tests-'));
  service = await startReferenceService();
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(!HAS_PHP_CURL)('client tests marked through the control API', () => {
  it('fail the one test that broke a rule, and are reported one case each', async () => {
    const json = join(folder, 'results.json');
    const { code, stdout, stderr } = await runCli([
      'proxy',
      '--target',
      service.baseUrl,
      '--json-report',
      json,
      '--',
      'php',
      join(ROOT, 'test', 'fixtures', 'clients', 'two-tests.php'),
    ]);
    expect(stdout).toBe(
      'PASS sets up a checkout\nFAIL sets up a checkout with a short ReturnUrl (checkout.return-url.length)\n',
    );
    // The session fails as the rule does; the client test that broke it is named.
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /Client tests: 2, 1 broke a rule\n {2}✗ sets up a checkout with a short ReturnUrl: checkout\.return-url\.length/,
    );
    const results = JSON.parse(readFileSync(json, 'utf8')) as { clientTests: { name: string; passed: boolean }[] };
    expect(results.clientTests.map((test) => [test.name, test.passed])).toEqual([
      ['sets up a checkout', true],
      ['sets up a checkout with a short ReturnUrl', false],
    ]);
  });
});
