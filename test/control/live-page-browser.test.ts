import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, ChromiumPage } from '../helpers/chromium-page.js';
import { proxiedService } from '../helpers/proxy-fixture.js';

// The live page in headless Chromium, as a person integrating at a desk has it open while their
// client runs: exchanges arrive live with their marks, a breach opens to its highlighted place,
// the filters work, hostile traffic stays text, and a burst leaves the page responsive.

// CI installs Debian's chromium; elsewhere the browser checks run when it is there.
const browserTest = CHROMIUM || process.env.CI ? describe : describe.skip;
/**
 * Screenshots for a person to look at: in the folder PRINT_CONFORMANCE_SCREENSHOTS names, else in a
 * temporary one removed at the end (no test writes outside a temporary folder unless told where).
 */
const KEPT = process.env.PRINT_CONFORMANCE_SCREENSHOTS;
const OUTPUT = KEPT ? join(KEPT, 'live-page') : mkdtempSync(join(tmpdir(), 'print-conformance-live-page-'));

let setup: Awaited<ReturnType<typeof proxiedService>>;
let page: ChromiumPage;
let livePage: string;

const address = { name: 'Jan', line1: 'Straat 1', postCode: '1234 AB', city: 'Utrecht', country: 'NL' };

async function checkoutSetUp(returnUrl: string, test: string): Promise<void> {
  const headers = { 'print-conformance-test': test };
  const order = (await (await fetch(`${setup.proxy.url}orders`, { method: 'POST', headers })).json()) as {
    checkout: { setupUrl: string };
  };
  await (
    await fetch(order.checkout.setupUrl, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ returnUrl, billing: { address } }),
    })
  ).arrayBuffer();
}

/** Waits, polling the page, until the expression is true; fails past `ms`. */
async function until(expression: string, ms: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await page.evaluate<boolean>(expression)) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The sequence number of the newest exchange of the feed whose URL holds `part`. */
function seqOf(part: string): string {
  const found = setup.proxy.feed.newestFirst().find((entry) => entry.url.includes(part));
  if (!found) throw new Error(`no exchange for ${part}`);
  return String(found.seq);
}

async function rows(): Promise<{ seq: string; text: string; hidden: boolean }[]> {
  return page.evaluate(
    `[...document.querySelectorAll('tbody tr')].map((tr) => ({ seq: tr.dataset.seq, text: tr.textContent, hidden: tr.hidden }))`,
  );
}

browserTest('the live page', () => {
  beforeAll(async () => {
    setup = await proxiedService();
    page = await ChromiumPage.launch('1280,900');
    livePage = `${setup.proxy.url}__print-conformance/`;
    mkdirSync(OUTPUT, { recursive: true });
  });
  afterAll(async () => {
    await page?.close();
    await setup?.dispose();
    if (!KEPT) rmSync(OUTPUT, { recursive: true, force: true });
  });

  it('shows an exchange sent through the proxy within a second, with its marks', async () => {
    await page.open(livePage);
    await checkoutSetUp('https://shop.example.com/done', 'keeps-it');
    const checkout = seqOf('/checkout/');
    const waited = await until(`!!document.querySelector('tbody tr[data-seq="${checkout}"]')`, 1000);
    expect(waited).toBeLessThan(1000);
    const shown = await rows();
    expect(shown.find((row) => row.seq === checkout)?.text).toMatch(
      /POST.*\/v2\/checkout\/.*201keeps-it\d+ \/ \d+ ms↑ \d+ B ↓ \d+ B✓/,
    );
    expect(shown.find((row) => row.seq === seqOf('/orders'))?.text).toMatch(/orders.*not judged/);
    // Nothing but the client's own traffic: the page itself sends nothing to the target.
    expect(setup.proxy.feed.last).toBe(2);
  });

  it('shows a breach, which opens to its highlighted place and curl line', async () => {
    await checkoutSetUp('a://', 'breaks-it');
    const breach = seqOf('/checkout/');
    await until(`!!document.querySelector('tbody tr[data-seq="${breach}"]')`, 1000);
    const row = (await rows()).find((shown) => shown.seq === breach);
    expect(row?.text).toMatch(/✗ checkout\.return-url\.length/);
    writeFileSync(join(OUTPUT, 'list.png'), await page.screenshot());
    await page.clickAndFollow(`tbody tr[data-seq="${breach}"] a`);
    const marked = await page.evaluate<string[]>(`[...document.querySelectorAll('mark')].map((m) => m.textContent)`);
    expect(marked).toContain('"returnUrl":"a://"');
    const text = await page.evaluate<string>('document.body.innerText');
    expect(text).toMatch(/checkout\.return-url\.length \(must, request at \/returnUrl\)/);
    expect(text).toMatch(/curl -H 'content-type: application\/json'.* --data-binary '\{"returnUrl":"a:\/\/"/);
    writeFileSync(join(OUTPUT, 'exchange.png'), await page.screenshot());
  });

  it('filters by status, rule and test', async () => {
    await page.open(livePage);
    const choose = (name: string, value: string) =>
      page.evaluate(
        `(() => { const s = document.querySelector('select[name=${name}]'); s.value = ${JSON.stringify(value)}; s.dispatchEvent(new Event('input', { bubbles: true })); return s.value; })()`,
      );
    expect(await choose('status', 'broken')).toBe('broken');
    let shown = (await rows()).filter((row) => !row.hidden).map((row) => row.seq);
    expect(shown).toEqual(['4']);
    await choose('status', '');
    await choose('test', 'keeps-it');
    shown = (await rows()).filter((row) => !row.hidden).map((row) => row.seq);
    expect(shown).toEqual(['2', '1']);
    await choose('test', '');
    await choose('rule', 'checkout.return-url.length');
    shown = (await rows()).filter((row) => !row.hidden).map((row) => row.seq);
    expect(shown).toEqual(['4']);
    // The filter is in the address: a reload, or the page without JavaScript, shows the same.
    expect(await page.evaluate<string>('location.search')).toBe('?rule=checkout.return-url.length');
    await choose('rule', '');
  });

  it('reads without JavaScript', async () => {
    await page.command('Emulation.setScriptExecutionDisabled', { value: true });
    try {
      await page.open(`${livePage}?status=broken`);
      const shown = await page.evaluate<string[]>(
        `[...document.querySelectorAll('tbody tr')].map((tr) => tr.dataset.seq)`,
      );
      expect(shown).toEqual(['4']);
    } finally {
      await page.command('Emulation.setScriptExecutionDisabled', { value: false });
    }
  });

  it('renders hostile traffic as text', async () => {
    await page.open(livePage);
    const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    await checkoutSetUp(`https://shop.example.com/${hostile}`, `<b id="planted">${hostile}</b>`);
    await until(`!!document.querySelector('tbody tr[data-seq="6"]')`, 1000);
    expect(await page.evaluate('window.__pwned ?? null')).toBeNull();
    expect(await page.evaluate(`document.querySelector('#planted, img') === null`)).toBe(true);
    expect((await rows()).find((row) => row.seq === '6')?.text).toContain('<b id="planted">');
    await page.open(`${livePage}exchanges/6`);
    expect(await page.evaluate('window.__pwned ?? null')).toBeNull();
    expect(await page.evaluate(`document.querySelector('#planted, img, script:not([nonce])') === null`)).toBe(true);
    expect(await page.evaluate<string>('document.body.innerText')).toContain('<script>window.__pwned=2</script>');
  });

  it('stays responsive through a burst of exchanges, holding a bounded list', async () => {
    await page.open(livePage);
    const agent = new Agent({ connections: 8 });
    const burst = 2000;
    try {
      await Promise.all(
        Array.from({ length: 8 }, async (_, lane) => {
          for (let index = lane; index < burst; index += 8) {
            const answer = await request(`${setup.proxy.url}orders/burst-${index}`, { dispatcher: agent });
            await answer.body.dump();
          }
        }),
      );
    } finally {
      await agent.close();
    }
    const last = setup.proxy.feed.last;
    await until(`!!document.querySelector('tbody tr[data-seq="${last}"]')`, 5000);
    // The page answers at once, and keeps the newest 500 rows.
    const started = performance.now();
    const count = await page.evaluate<number>(`document.querySelectorAll('tbody tr').length`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(count).toBe(500);
    writeFileSync(join(OUTPUT, 'burst.png'), await page.screenshot());
  });
});
