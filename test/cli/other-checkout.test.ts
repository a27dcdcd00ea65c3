import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';

// Given the URLs, the suite places no order, so a second checkout comes from the user: each of
// the two checkouts is set up with other values and must read back its own.

let service: ReferenceService;
let reports: string;
beforeAll(async () => {
  service = await startReferenceService();
  reports = mkdtempSync(join(tmpdir(), 'print-conformance-other-checkout-'));
});
afterAll(async () => {
  await service.close();
  rmSync(reports, { recursive: true, force: true });
});

async function freshOrder(): Promise<{ checkout: string; upload: string }> {
  const answer = await fetch(`${service.baseUrl}orders`, { method: 'POST' });
  const order = (await answer.json()) as {
    checkout: { setupUrl: string };
    items: { files: { content: { uploadUrl: string } } }[];
  };
  return { checkout: order.checkout.setupUrl, upload: order.items[0]?.files.content.uploadUrl as string };
}

const codeOf = (url: string) => url.split('/').pop() as string;

describe('run --other-checkout-url', () => {
  it('sets up the second checkout too, with its own values', async () => {
    const first = await freshOrder();
    const second = await freshOrder();
    const result = await runCli([
      '--checkout-url',
      first.checkout,
      '--upload-url',
      first.upload,
      '--other-checkout-url',
      second.checkout,
      '--quiet',
      '--report-dir',
      reports,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const one = service.store.checkouts.get(codeOf(first.checkout));
    const two = service.store.checkouts.get(codeOf(second.checkout));
    expect(two?.setUp).toBe(true);
    expect(two?.returnUrl).not.toBe(one?.returnUrl);
  });

  it('is refused without --checkout-url, and when it names the same checkout', async () => {
    const { checkout } = await freshOrder();
    const alone = await runCli(['--other-checkout-url', checkout, '--quiet', '--report-dir', reports]);
    expect(alone.stderr).toMatch(/--other-checkout-url goes with --checkout-url/);
    expect(alone.code).toBe(2);
    const same = await runCli(['--checkout-url', checkout, '--other-checkout-url', checkout, '--report-dir', reports]);
    expect(same.stderr).toMatch(/--other-checkout-url must name another checkout/);
    expect(same.code).toBe(2);
  });
});
