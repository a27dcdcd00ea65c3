import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, ChromiumPage } from '../helpers/chromium-page.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';
import { proxiedService } from '../helpers/proxy-fixture.js';

// The live page of a proxy that tells client teams apart, in headless Chromium: each client's
// verdict appears at the top as its traffic comes, and the client filter shows one team's exchanges.

const browserTest = CHROMIUM || process.env.CI ? describe : describe.skip;

let setup: Awaited<ReturnType<typeof proxiedService>>;
let page: ChromiumPage;

const HEADER = 'print-conformance-client';

/** An order and its checkout set-up: at the URL the order gave, or (`own`) at one the client built. */
async function checkout(client: string, own: boolean): Promise<void> {
  const headers = { [HEADER]: client, 'content-type': 'application/json', accept: 'application/json' };
  const order = (await (await fetch(`${setup.proxy.url}orders`, { method: 'POST', headers })).json()) as {
    id: string;
    checkout: { setupUrl: string };
  };
  const url = own ? `${setup.proxy.url}checkout/${order.id}` : order.checkout.setupUrl;
  await (await fetch(url, { method: 'POST', headers, body: checkoutRequestJson() })).arrayBuffer();
}

async function until(expression: string, ms: number): Promise<void> {
  const started = performance.now();
  while (!(await page.evaluate<boolean>(expression))) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

browserTest('the live page with --clients-by', () => {
  beforeAll(async () => {
    setup = await proxiedService({ proxy: { clientsBy: { kind: 'header', name: HEADER } } });
    page = await ChromiumPage.launch('1280,900');
  });
  afterAll(async () => {
    await page?.close();
    await setup?.dispose();
  });

  it('shows each client’s verdict live and filters the list by client', async () => {
    await page.open(`${setup.proxy.url}__print-conformance/`);
    await checkout('team-green', false);
    await checkout('team-red', true);
    await until(`document.querySelectorAll('tbody tr').length >= 4`, 3000);
    await until(`!!document.querySelector('#clients li[data-client="team-red"]')`, 3000);
    const items = await page.evaluate<string[]>(
      `[...document.querySelectorAll('#clients li')].map((li) => li.textContent)`,
    );
    expect(items).toContainEqual(expect.stringMatching(/^✓ client team-green \(2\)$/));
    expect(items).toContainEqual(expect.stringMatching(/^✗ client team-red \(2\): .*client\.given-urls/));
    const shown = await page.evaluate<string[]>(
      `(() => { const s = document.querySelector('select[name=client]'); s.value = 'team-red'; s.dispatchEvent(new Event('input', { bubbles: true })); return [...document.querySelectorAll('tbody tr')].filter((tr) => !tr.hidden).map((tr) => tr.textContent); })()`,
    );
    expect(shown).toHaveLength(2);
    expect(shown.join('\n')).toMatch(/client\.given-urls/);
    expect(await page.evaluate<string>('location.search')).toBe('?client=team-red');
  });
});
