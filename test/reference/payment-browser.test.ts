import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../src/http/listen.js';
import { send } from '../../src/http/send.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { CHROMIUM, ChromiumPage } from '../helpers/chromium-page.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';

// A client team's end-to-end test against `serve`, in a real browser: the test sets the checkout up
// as the shop's back end would, the browser opens PaymentUrl, a person clicks an outcome, and the
// browser lands on the shop's ReturnUrl — a tiny server of this test that records the request line
// exactly as it came, so that a ReturnUrl holding `&`, `%20`, `é` and a fragment is seen intact.

// CI installs Debian's chromium; elsewhere the browser checks run when it is there.
const browserTest = CHROMIUM || process.env.CI ? it : it.skip;
/**
 * Screenshots of the payment page, for a person to look at: in the folder
 * PRINT_CONFORMANCE_SCREENSHOTS names, else in a temporary one removed at the end (no test writes
 * into the checkout).
 */
const KEPT = process.env.PRINT_CONFORMANCE_SCREENSHOTS;
const OUTPUT = KEPT ?? mkdtempSync(join(tmpdir(), 'print-conformance-payment-screen-'));

let service: ReferenceService;
let shop: Server;
let shopUrl: string;
const shopRequests: string[] = [];
let page: ChromiumPage | undefined;
/** What each walk saw, written beside the screenshots for a person to read. */
const observed: Record<string, unknown> = {};

beforeAll(async () => {
  service = await startReferenceService();
  shop = createServer((request, response) => {
    shopRequests.push(`${request.method} ${request.url} HTTP/${request.httpVersion}`);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    // Its one script tells whether the browser ran scripts during the walk.
    response.end('<!DOCTYPE html><title>Back at the shop</title><script>document.title = "scripts ran"</script>');
  });
  shopUrl = await listen(shop, 0, '127.0.0.1');
  if (CHROMIUM) page = await ChromiumPage.launch();
  mkdirSync(OUTPUT, { recursive: true });
});
afterAll(async () => {
  if (Object.keys(observed).length > 0)
    writeFileSync(join(OUTPUT, 'observed.json'), `${JSON.stringify(observed, null, 2)}\n`);
  await page?.close();
  await new Promise((resolve) => shop.close(resolve));
  await service.close();
  if (!KEPT) rmSync(OUTPUT, { recursive: true, force: true });
});

/** Places an order and sets its checkout up with this ReturnUrl, as the shop's back end does. */
async function setUp(returnUrl: string) {
  const order = await send({ method: 'POST', url: `${service.baseUrl}orders` });
  const checkoutUrl = JSON.parse(order.response?.body?.text ?? '{}').checkout.setupUrl as string;
  const body = JSON.stringify({ ...JSON.parse(checkoutRequestJson()), returnUrl });
  const setUp = await send({
    method: 'POST',
    url: checkoutUrl,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
  expect(setUp.response?.status).toBe(201);
  return { checkoutUrl, paymentUrl: JSON.parse(setUp.response?.body?.text ?? '{}').paymentUrl as string };
}

async function statusOf(checkoutUrl: string, accept: string): Promise<string | undefined> {
  const text = (await send({ method: 'GET', url: checkoutUrl, headers: { accept } })).response?.body?.text ?? '';
  return accept === 'application/json' ? JSON.parse(text).status : /<Status>([^<]*)<\/Status>/.exec(text)?.[1];
}

describe('the payment screen in headless Chromium', () => {
  for (const [button, status] of [
    ['pay', 'Successful'],
    ['cancel', 'Cancelled'],
    ['fail', 'Failed'],
  ] as const) {
    browserTest(
      `${button}: the page shows the payment, the click lands on the ReturnUrl intact, GET says ${status}`,
      async () => {
        if (!page) throw new Error('Chromium is not installed: apt-get install chromium');
        const path = `/back/${button}/é`;
        const returnUrl = `${shopUrl}${path}?order=1&note=a%20b&name=é#done`;
        const { checkoutUrl, paymentUrl } = await setUp(returnUrl);

        // The page's own scripts are off, as for a customer without JavaScript: the forms alone do the work.
        await page.command('Emulation.setScriptExecutionDisabled', { value: true });
        await page.open(paymentUrl);
        const shown = await page.evaluate<Record<string, string>>(
          `Object.fromEntries(['amount', 'order', 'return-url'].map((id) => [id, document.getElementById(id).textContent]))`,
        );
        expect(shown).toEqual({ amount: '22.49', order: expect.stringMatching(/^\w+$/), 'return-url': returnUrl });
        const screenshot = await page.screenshot();
        writeFileSync(join(OUTPUT, `${button}.png`), screenshot);
        expect(screenshot.subarray(1, 4).toString()).toBe('PNG');
        expect(await statusOf(checkoutUrl, 'application/json')).toBe('Open');

        const before = shopRequests.length;
        await page.clickAndFollow(`#${button}`);
        const landedOn = await page.evaluate<string>('location.href');
        const after = {
          json: await statusOf(checkoutUrl, 'application/json'),
          xml: await statusOf(checkoutUrl, 'application/xml'),
        };
        observed[button] = { returnUrl, shown, requestLines: shopRequests.slice(before), landedOn, status: after };
        // The request line the shop got: `&` and `%20` as sent, `é` as a browser sends it (UTF-8, escaped).
        const encodedPath = path.replace('é', '%C3%A9');
        expect(shopRequests.slice(before)).toContain(`GET ${encodedPath}?order=1&note=a%20b&name=%C3%A9 HTTP/1.1`);
        // Where the browser shows it is: the same, with the fragment the request line never carries.
        expect(await page.evaluate<string>('document.title')).toBe('Back at the shop');
        expect(landedOn).toBe(`${shopUrl}${encodedPath}?order=1&note=a%20b&name=%C3%A9#done`);
        expect(await page.evaluate<string>('decodeURIComponent(location.pathname)')).toBe(path);
        expect(after).toEqual({ json: status, xml: status });
      },
    );
  }
});
