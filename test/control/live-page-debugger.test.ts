import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleById } from '../../src/contract/rules.js';
import type { FeedEntry } from '../../src/control/exchange-feed.js';
import { parseFault } from '../../src/reference/faults.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { CHROMIUM, ChromiumPage } from '../helpers/chromium-page.js';
import { startListeningCli } from '../helpers/cli.js';
import { PDF_BYTES } from '../helpers/exchanges.js';
import { proxiedService } from '../helpers/proxy-fixture.js';

// The live page as a debugger of the interface, in headless Chromium, in front of the real CLI
// proxy (its verdicts are the session's tally): the verdict so far and each client test's pass or
// fail at the top, durations and sizes per exchange, the text search, filters that learn new tests
// and rules, bodies laid out with the broken member itself highlighted in XML and JSON beside the
// rule's catalog text, a curl line that goes through the proxy and is judged again, the HAR
// download, refused TLS handshakes as rows of their own, a narrow window, and serve's webhooks.

const browserTest = CHROMIUM || process.env.CI ? describe : describe.skip;
const run = promisify(execFile);

let service: ReferenceService;
let proxy: Awaited<ReturnType<typeof startListeningCli>>;
let page: ChromiumPage;
let live: string;
let control: string;

const ADDRESS = { name: 'Jan', line1: 'Straat 1', postCode: '1234 AB', city: 'Utrecht', country: 'NL' };

async function api<T>(path: string): Promise<T> {
  return (await (await fetch(`${control}${path}`)).json()) as T;
}

async function newest(): Promise<FeedEntry> {
  const { exchanges } = await api<{ exchanges: FeedEntry[] }>('api/exchanges?after=0');
  return exchanges.at(-1) as FeedEntry;
}

/** Places an order through the proxy; returns its checkout URL and upload URLs (the proxy's). */
async function order(test: string) {
  const placed = (await (
    await fetch(`${proxy.url}orders`, { method: 'POST', headers: { 'print-conformance-test': test } })
  ).json()) as { checkout: { setupUrl: string }; items: { files: Record<string, { uploadUrl: string }> }[] };
  return { checkoutUrl: placed.checkout.setupUrl, uploads: placed.items[0]?.files };
}

async function setUpJson(test: string, body: object, headers: Record<string, string> = {}) {
  const { checkoutUrl } = await order(test);
  const text = JSON.stringify(body);
  const answer = await fetch(checkoutUrl, {
    method: 'POST',
    headers: {
      'print-conformance-test': test,
      'content-type': 'application/json',
      accept: 'application/json',
      ...headers,
    },
    body: text,
  });
  const received = Buffer.from(await answer.arrayBuffer());
  return { checkoutUrl, sent: Buffer.byteLength(text), received: received.length, entry: await newest() };
}

async function until(expression: string, ms = 5000): Promise<void> {
  const started = performance.now();
  for (;;) {
    if (await page.evaluate<boolean>(expression)) return;
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const rowText = (seq: number) =>
  page.evaluate<string>(`document.querySelector('tbody tr[data-seq="${seq}"]')?.textContent ?? ''`);
const visibleSeqs = () =>
  page.evaluate<number[]>(
    `[...document.querySelectorAll('#exchanges tbody tr')].filter((tr) => !tr.hidden).map((tr) => Number(tr.dataset.seq))`,
  );

browserTest('the live page as a debugger', () => {
  beforeAll(async () => {
    service = await startReferenceService({ faults: [parseFault('slow:get-checkout:300')] });
    proxy = await startListeningCli([
      'proxy',
      '--target',
      service.baseUrl,
      '--record-bodies',
      '--summary-interval',
      '0',
    ]);
    control = `${proxy.url}__print-conformance/`;
    live = control;
    page = await ChromiumPage.launch('1280,900');
  });
  afterAll(async () => {
    await page?.close();
    await proxy?.stop();
    await service?.close();
  });

  it('shows the verdict so far and each client test passing or failing, as api/verdicts tallies them, live', async () => {
    await page.open(live);
    await setUpJson('keeps-it', { returnUrl: 'https://shop.example.test/done', billing: { address: ADDRESS } });
    await until(`document.querySelector('#tests li[data-test="keeps-it"]')?.className === 'good'`);
    await setUpJson('breaks-it', { returnUrl: 'a://', billing: { address: ADDRESS } });
    await until(`document.querySelector('#tests li[data-test="breaks-it"]')?.className === 'bad'`);
    await until(`document.querySelector('#verdict strong')?.textContent === 'failed'`);
    const { summary } = await api<{ summary: Record<string, number> }>('api/verdicts');
    expect(await page.evaluate<string>(`document.getElementById('verdict').textContent`)).toBe(
      `Verdict so far: failed — ${summary.passed} passed, ${summary.failed} failed, ${summary.warnings} warnings, ${summary.untested} untested, ${summary.skipped} skipped`,
    );
    expect(await page.evaluate<string>(`document.querySelector('#tests li[data-test="breaks-it"]').textContent`)).toBe(
      '✗ breaks-it (2): checkout.return-url.length',
    );
    // A reload shows the same, rendered on the server.
    await page.open(live);
    expect(await page.evaluate<string>(`document.getElementById('verdict').textContent`)).toMatch(
      /^Verdict so far: failed — /,
    );
    // A test that sent nothing of the interface has shown nothing: neither a pass nor a failure.
    for (const name of ['sends-nothing', null])
      await fetch(`${control}api/tests`, { method: 'POST', body: JSON.stringify({ name }) });
    await page.open(live);
    expect(
      await page.evaluate<string>(`document.querySelector('#tests li[data-test="sends-nothing"]').textContent`),
    ).toBe('· sends-nothing (0): no exchange of the interface');
  });

  it("shows each exchange's durations (to the answer's head, to its end) and both bodies' sizes as sent", async () => {
    await page.open(live);
    const set = await setUpJson('sizes', {
      returnUrl: 'https://shop.example.test/sized',
      billing: { address: ADDRESS },
    });
    await until(`!!document.querySelector('tbody tr[data-seq="${set.entry.seq}"]')`);
    // The request as the client sent it; the answer as the service sent it (the proxy then points
    // its URLs at itself, so the client reads a few bytes more or less).
    const recorded = await api<{ response: { text: string } }>(`api/exchanges/${set.entry.seq}`);
    expect(Math.abs(Buffer.byteLength(recorded.response.text) - set.received)).toBeLessThan(20);
    expect(await rowText(set.entry.seq)).toContain(`↑ ${set.sent} B ↓ ${Buffer.byteLength(recorded.response.text)} B`);
    // GET checkout is answered after 300 ms (serve --fault slow:get-checkout:300).
    await (await fetch(set.checkoutUrl, { headers: { accept: 'application/json' } })).arrayBuffer();
    const read = await newest();
    const got = Buffer.byteLength(
      (await api<{ response: { text: string } }>(`api/exchanges/${read.seq}`)).response.text,
    );
    await until(`!!document.querySelector('tbody tr[data-seq="${read.seq}"]')`);
    const text = await rowText(read.seq);
    const timing = await page.evaluate<string>(
      `document.querySelector('tbody tr[data-seq="${read.seq}"] td[title]').textContent`,
    );
    const [, head, end] = /^(\d+) \/ (\d+) ms$/.exec(timing) ?? [];
    expect(Number(head)).toBeGreaterThanOrEqual(300);
    expect(Number(end)).toBeGreaterThanOrEqual(Number(head));
    expect([Number(head), Number(end)]).toEqual([read.headMs, read.durationMs]);
    expect(text).toContain(`↑ 0 B ↓ ${got} B`);
  });

  it('searches URL, headers and bodies, also in exchanges that arrive after, and without JavaScript', async () => {
    await page.open(live);
    const inBody = await setUpJson('search', {
      returnUrl: 'https://shop.example.test/done',
      billing: { address: { ...ADDRESS, city: 'Zwolle-needle' } },
    });
    const inHeader = await setUpJson(
      'search',
      { returnUrl: 'https://shop.example.test/done', billing: { address: ADDRESS } },
      {
        'x-trace': 'trace-NEEDLE-7',
      },
    );
    await until(`!!document.querySelector('tbody tr[data-seq="${inHeader.entry.seq}"]')`);
    await page.evaluate(
      `(() => { const q = document.querySelector('input[name=q]'); q.value = 'needle'; q.dispatchEvent(new Event('input', { bubbles: true })); })()`,
    );
    await until(`document.querySelectorAll('#exchanges tbody tr:not([hidden])').length === 2`);
    expect(await visibleSeqs()).toEqual([inHeader.entry.seq, inBody.entry.seq]);
    // One that arrives while the search stands is shown when it matches, hidden when not.
    const later = await setUpJson('search', {
      returnUrl: 'https://shop.example.test/needle',
      billing: { address: ADDRESS },
    });
    await until(`!!document.querySelector('tbody tr[data-seq="${later.entry.seq}"]:not([hidden])')`);
    expect(await visibleSeqs()).toEqual([later.entry.seq, inHeader.entry.seq, inBody.entry.seq]);
    expect(await page.evaluate<string>('location.search')).toBe('?q=needle');
    await page.command('Emulation.setScriptExecutionDisabled', { value: true });
    try {
      await page.open(`${live}?q=NEEDLE`);
      expect(await visibleSeqs()).toEqual([later.entry.seq, inHeader.entry.seq, inBody.entry.seq]);
    } finally {
      await page.command('Emulation.setScriptExecutionDisabled', { value: false });
    }
  });

  it('adds a new test and a new rule to the filters as their exchanges arrive', async () => {
    await page.open(live);
    const options = (name: string) =>
      page.evaluate<string[]>(`[...document.querySelector('select[name=${name}]').options].map((o) => o.value)`);
    expect(await options('test')).not.toContain('newcomer');
    expect(await options('rule')).not.toContain('checkout.country-code');
    await setUpJson('newcomer', {
      returnUrl: 'https://shop.example.test/done',
      billing: { address: { ...ADDRESS, country: 'Holland' } },
    });
    await until(`[...document.querySelector('select[name=test]').options].some((o) => o.value === 'newcomer')`);
    await until(
      `[...document.querySelector('select[name=rule]').options].some((o) => o.value === 'checkout.country-code')`,
    );
    const rules = (await options('rule')).slice(1);
    expect(rules).toEqual([...rules].sort());
  });

  it('lays bodies out and highlights the broken member itself, in XML sent on one line as in JSON, beside the rule text', async () => {
    const { checkoutUrl } = await order('xml');
    const oneLine =
      '<?xml version="1.0"?><Checkout><ReturnUrl>https://shop.example.test/done</ReturnUrl><Billing><Address><Name>Jan</Name><Line1>Straat 1</Line1><PostCode>1234 AB</PostCode><City>Utrecht</City><Country>Holland</Country></Address></Billing></Checkout>';
    await fetch(checkoutUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/xml', accept: 'application/xml' },
      body: oneLine,
    });
    const xml = await newest();
    await page.open(`${live}exchanges/${xml.seq}`);
    const request = () =>
      page.evaluate<{ marked: string[]; lines: number }>(
        `(() => { const pre = document.querySelectorAll('pre.body')[0]; return { marked: [...pre.querySelectorAll('mark')].map((m) => m.textContent), lines: pre.textContent.split('\\n').length }; })()`,
      );
    expect(await request()).toEqual({ marked: ['<Country>Holland</Country>'], lines: 13 });
    const rule = ruleById('checkout.country-code');
    const finding = await page.evaluate<string>(
      `[...document.querySelectorAll('li.bad')].find((li) => li.textContent.startsWith('checkout.country-code (should, request')).textContent`,
    );
    expect(finding).toContain(`${rule.title} ${rule.description}`);
    // What was sent stays a click away, exactly as it came.
    expect(await page.evaluate<string>(`document.querySelector('pre.sent').textContent`)).toBe(oneLine);

    const json = await setUpJson('json', {
      returnUrl: 'https://shop.example.test/done',
      billing: { address: { ...ADDRESS, country: 'Holland' } },
    });
    await page.open(`${live}exchanges/${json.entry.seq}`);
    expect(await request()).toEqual({ marked: ['"country": "Holland"'], lines: 12 });
  });

  it('gives a curl line through the proxy, with a copy button: the request sent again is judged again', async () => {
    const broken = await setUpJson('resend', { returnUrl: 'a://', billing: { address: ADDRESS } });
    await page.open(`${live}exchanges/${broken.entry.seq}`);
    const curl = await page.evaluate<string>(`document.getElementById('curl').textContent`);
    expect(curl).toContain(` ${broken.checkoutUrl}`);
    expect(curl.startsWith(`curl `)).toBe(true);
    await page.command('Browser.grantPermissions', { permissions: ['clipboardReadWrite', 'clipboardSanitizedWrite'] });
    await page.evaluate(`document.getElementById('copy').click()`);
    await until(`document.getElementById('copy').textContent === 'Copied'`);
    await run('sh', ['-c', `${curl} --silent --output /dev/null`]);
    const again = await newest();
    expect(again.seq).toBeGreaterThan(broken.entry.seq);
    expect(again.url).toBe(broken.entry.url);
    expect(again.violations.map((v) => v.rule)).toContain('checkout.return-url.length');
  });

  it('with --record-bodies, sends an upload again from the body the proxy kept', async () => {
    const { uploads } = await order('upload');
    const file = Buffer.concat([PDF_BYTES, Buffer.alloc(20_000, 0x41)]);
    await fetch(uploads?.content?.uploadUrl as string, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', accept: 'application/json' },
      body: file,
    });
    const upload = await newest();
    await page.open(`${live}exchanges/${upload.seq}`);
    const curl = await page.evaluate<string>(`document.getElementById('curl').textContent`);
    expect(curl).toMatch(
      /^curl -sf -o print-conformance-request-body-(\d+)\.pdf '?[^' ]+\/__print-conformance\/exchanges\/\1\/request-body'? && curl .* --data-binary @print-conformance-request-body-\1\.pdf /,
    );
    expect(curl).not.toMatch(/not kept/);
    // The line fetches the kept body to a file first: in a folder of the test's own.
    const folder = mkdtempSync(join(tmpdir(), 'live-page-curl-'));
    try {
      await run('sh', ['-c', `${curl} --silent --output /dev/null`], { cwd: folder });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    const again = await newest();
    expect([again.seq > upload.seq, again.url, again.status, again.requestBytes]).toEqual([
      true,
      upload.url,
      200,
      file.length,
    ]);
    // One too large for the page's window is in the recording, and the line says so.
    await fetch(uploads?.cover?.uploadUrl as string, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', accept: 'application/json' },
      body: Buffer.concat([PDF_BYTES, Buffer.alloc(900_000, 0x41)]),
    });
    const large = await newest();
    await page.open(`${live}exchanges/${large.seq}`);
    expect(await page.evaluate<string>(`document.getElementById('curl').textContent`)).toMatch(
      /--data-binary @body\.pdf .*# body\.pdf: the \d+ bytes sent, sha256 [0-9a-f]{64}, kept whole in the recording \(--record-bodies\), too large for the live page$/,
    );
  });

  it('downloads the window as HAR 1.2 from its link, bodies redacted as recorded', async () => {
    await setUpJson(
      'har',
      { returnUrl: 'https://shop.example.test/done', billing: { address: ADDRESS } },
      {
        authorization: 'Bearer s3cret-token-value',
      },
    );
    await page.open(live);
    const href = await page.evaluate<string>(`document.getElementById('har').href`);
    expect(href).toBe(`${control}api/har`);
    const har = await page.evaluate<string>(`fetch(document.getElementById('har').href).then((r) => r.text())`);
    expect(har).not.toContain('s3cret-token-value');
    const log = JSON.parse(har).log;
    expect(log.version).toBe('1.2');
    const { exchanges } = await api<{ exchanges: FeedEntry[] }>('api/exchanges?after=0');
    expect(log.entries).toHaveLength(exchanges.length);
    for (const entry of log.entries) {
      expect(entry).toMatchObject({
        startedDateTime: expect.any(String),
        time: expect.any(Number),
        request: { method: expect.any(String), url: expect.any(String), headers: expect.any(Array) },
        response: { status: expect.any(Number), content: { size: expect.any(Number) } },
        timings: { wait: expect.any(Number) },
      });
    }
    const sent = log.entries.find((entry: { request: { headers: { name: string; value: string }[] } }) =>
      entry.request.headers.some((h) => h.name === 'authorization'),
    );
    expect(sent.request.headers.find((h: { name: string }) => h.name === 'authorization').value).toBe('[Filtered]');
    expect(sent.request.postData.text).toContain('"returnUrl":"https://shop.example.test/done"');
    // The download is what validate reads.
    const { exchangeOfHarEntry } = await import('../../src/recording/har.js');
    expect(log.entries.map((entry: unknown) => exchangeOfHarEntry(entry).request.method)).toContain('POST');
  });

  it('keeps the URL whole and the verdict in view at 420 px', async () => {
    await page.command('Emulation.setDeviceMetricsOverride', {
      width: 420,
      height: 800,
      deviceScaleFactor: 1,
      mobile: false,
    });
    try {
      await page.open(live);
      const layout = await page.evaluate<{
        overflow: boolean;
        urlWidth: number;
        urlHeight: number;
        lineHeight: number;
        verdictRight: number;
        width: number;
      }>(
        `(() => { const tr = document.querySelector('#exchanges tbody tr'); const url = tr.querySelector('td.url').getBoundingClientRect(); const verdict = tr.querySelector('td.verdict').getBoundingClientRect();
          return { overflow: document.documentElement.scrollWidth > innerWidth, urlWidth: url.width, urlHeight: url.height, lineHeight: parseFloat(getComputedStyle(tr.querySelector('td.url')).lineHeight), verdictRight: verdict.right, width: innerWidth }; })()`,
      );
      expect(layout.overflow).toBe(false);
      expect(layout.urlWidth).toBeGreaterThan(350);
      expect(layout.urlHeight).toBeLessThanOrEqual(layout.lineHeight * 2 + 1);
      expect(layout.verdictRight).toBeLessThanOrEqual(layout.width);
    } finally {
      await page.command('Emulation.clearDeviceMetricsOverride');
    }
  });
});

browserTest('the live page beside the proxy’s interception and serve', () => {
  it('shows a refused TLS handshake as a row of its own, live and without JavaScript', async () => {
    const setup = await proxiedService();
    const browser = await ChromiumPage.launch('1000,800');
    try {
      const livePage = `${setup.proxy.url}__print-conformance/`;
      await browser.open(livePage);
      const refused = setup.proxy.feed.pushRefusedHandshake({
        host: 'api.example.test',
        client: '127.0.0.1:50312',
        reason: 'unknown ca',
      });
      const selector = `tbody tr.refused[data-seq="${refused.seq}"]`;
      for (let tries = 0; !(await browser.evaluate<boolean>(`!!document.querySelector('${selector}')`)); tries += 1) {
        if (tries > 200) throw new Error('the refused handshake never showed');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await browser.evaluate<string>(`document.querySelector('${selector}').textContent`)).toMatch(
        /CONNECTapi\.example\.test\/refused.*✗ TLS handshake refused: unknown ca$/,
      );
      await browser.command('Emulation.setScriptExecutionDisabled', { value: true });
      await browser.open(livePage);
      expect(await browser.evaluate<string>(`document.querySelector('${selector} td.verdict').textContent`)).toBe(
        '✗ TLS handshake refused: unknown ca',
      );
      await browser.clickAndFollow(`${selector} a`);
      expect(await browser.evaluate<string>('document.body.innerText')).toMatch(
        /The client at 127\.0\.0\.1:50312 refused the proxy's certificate for api\.example\.test: unknown ca/,
      );
    } finally {
      await browser.close();
      await setup.dispose();
    }
  });

  it("lists serve's webhook calls with their tries", async () => {
    const shop = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(204).end());
    });
    shop.listen(0, '127.0.0.1');
    await once(shop, 'listening');
    const hook = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/hook`;
    const reference = await startReferenceService({ control: {}, webhooks: { urls: [hook] } });
    const browser = await ChromiumPage.launch('1000,800');
    try {
      const base = reference.baseUrl;
      const placed = (await (await fetch(`${base}orders`, { method: 'POST' })).json()) as {
        id: string;
        checkout: { setupUrl: string };
      };
      await fetch(placed.checkout.setupUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ returnUrl: 'https://shop.example.test/done', billing: { address: ADDRESS } }),
      });
      const code = placed.checkout.setupUrl.split('/').pop();
      const livePage = `${base.replace(/v2\/$/, '')}__print-conformance/`;
      await browser.open(livePage);
      await fetch(`${livePage}api/payments/${code}`, { method: 'POST', body: '{"outcome":"Successful"}' });
      for (let tries = 0; ; tries += 1) {
        const text = await browser.evaluate<string>(`document.querySelector('#webhooks tbody')?.textContent ?? ''`);
        if (/204 \(\d+ ms\)/.test(text)) {
          expect(text).toContain(placed.id);
          expect(text).toContain(hook);
          break;
        }
        if (tries > 200) throw new Error(`the webhook call never showed: ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await browser.close();
      await reference.close();
      shop.close();
    }
  });
});
