import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { ROOT } from '../helpers/cli.js';

// The client-team test of the payment flow is run as written against the reference
// service, so that what a team copies from it works.

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-readme-flow-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("the serve page's end-to-end test of the checkout flow", () => {
  it('passes against serve', async () => {
    const readme = readFileSync(join(ROOT, 'docs', 'serve.md'), 'utf8');
    const section = readme.slice(readme.indexOf("A client team's test of the flow"));
    const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toContain("test('a customer pays and comes back to the shop'");
    const file = join(folder, 'checkout.e2e.test.mjs');
    writeFileSync(file, code as string);
    // The test reads the API's address from the variable the proxy sets for the commands it wraps.
    // The reporter named: Node.js 24 prints its spec reporter by default where 20 and 22 print TAP.
    const { stdout } = await promisify(execFile)(process.execPath, ['--test', '--test-reporter=tap', file], {
      env: { ...process.env, PRINT_CONFORMANCE_PROXY_URL: service.baseUrl },
    });
    expect(stdout).toMatch(/\n# pass 1\n# fail 0\n/);
  });
});
