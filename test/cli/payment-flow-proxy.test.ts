import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { startListeningCli } from '../helpers/cli.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';

// A client team's checkout flow against the reference service with the proxy in front: the
// interface calls are recorded and judged as usual, and the payment screen (the customer's pages,
// not the interface) goes through the proxy without being judged by any rule.

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-flow-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('the payment flow behind the proxy', () => {
  it('stays behind the proxy, records every call, and judges only the interface', async () => {
    const record = join(folder, 'flow.ndjson');
    const proxy = await startListeningCli(['proxy', '--target', service.baseUrl, '--record', record]);
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    const order = (await (await fetch(`${proxy.url}orders`, { method: 'POST' })).json()) as {
      checkout: { setupUrl: string };
    };
    const returnUrl = 'https://shop.example.test/thanks?order=42&note=a%20b';
    const body = JSON.stringify({ ...JSON.parse(checkoutRequestJson()), returnUrl });
    const setUp = await fetch(order.checkout.setupUrl, { method: 'POST', headers: json, body });
    const { paymentUrl } = (await setUp.json()) as { paymentUrl: string };
    // The customer is sent to the proxy's address, so the page's relative form actions stay behind it too.
    expect(paymentUrl.startsWith(proxy.url)).toBe(true);
    expect((await fetch(paymentUrl)).status).toBe(200);
    const paid = await fetch(new URL('pay', paymentUrl), { method: 'POST', redirect: 'manual' });
    expect([paid.status, paid.headers.get('location')]).toEqual([303, returnUrl]);
    const checkout = (await (await fetch(order.checkout.setupUrl, { headers: json })).json()) as { status: string };
    expect(checkout.status).toBe('Successful');

    const { code, stdout } = await proxy.stop();
    const recorded = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { request: { method: string; url: string }; violations: unknown[] });
    expect(
      recorded.map(
        (e) => `${e.request.method} ${new URL(e.request.url).pathname.replace(/\/(checkout|payments)\/\w+/, '/$1/…')}`,
      ),
    ).toEqual([
      'POST /v2/orders',
      'POST /v2/checkout/…',
      'GET /v2/payments/…/start',
      'POST /v2/payments/…/pay',
      'GET /v2/checkout/…',
    ]);
    expect(recorded.flatMap((e) => e.violations)).toEqual([]);
    expect(stdout).toMatch(/Not the interface[^\n]*2×/);
    expect(code).toBe(0);
  });
});
