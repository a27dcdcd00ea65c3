import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startListeningCli } from '../helpers/cli.js';
import { checkoutRequestJson, checkoutResponseJson } from '../helpers/exchanges.js';

// Names given with --redact are secret in findings too: a violation quoting the value of such a
// member or parameter quotes it redacted in the recording, the HAR file, the console and the
// Markdown summary, because findings are redacted where the proxy makes them.

const PAYMENT_SECRET = 'P4ym3nt-s3ss10n-Qx7';
const RETURN_SECRET = 'R3turn-t0k3n-Vw2';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-redact-findings-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe('proxy --redact', () => {
  it('hides the values of the names it is given in every finding that quotes them', async () => {
    const answer = JSON.parse(checkoutResponseJson());
    // A relative PaymentUrl (checkout.payment-url) and a ReturnUrl answered otherwise than sent (checkout.echo).
    answer.paymentUrl = `/pay/${PAYMENT_SECRET}`;
    const target = createServer(async (request, response) => {
      for await (const _ of request);
      response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
    target.listen(0, '127.0.0.1');
    await once(target, 'listening');
    const at = (name: string) => join(folder, name);
    try {
      const proxy = await startListeningCli([
        'proxy',
        '--target',
        `http://127.0.0.1:${(target.address() as { port: number }).port}/v2/`,
        '--redact',
        'PaymentUrl',
        '--redact',
        't',
        '--record',
        at('t.ndjson'),
        '--har',
        at('t.har'),
        '--summary-md',
        at('summary.md'),
      ]);
      const sent = JSON.parse(checkoutRequestJson());
      sent.returnUrl = `https://shop.test/back?t=${RETURN_SECRET}`;
      const posted = await fetch(`${proxy.url}checkout/5L2zKMnOqp6A15GoP909Z`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(sent),
      });
      await posted.text();
      const { stderr, stdout } = await proxy.stop();
      const recording = readFileSync(at('t.ndjson'), 'utf8');
      // The findings were made, and quote nothing of either value.
      expect(recording).toContain('checkout.payment-url');
      expect(recording).toContain('checkout.echo');
      for (const [name, text] of [
        ['recording', recording],
        ['HAR', readFileSync(at('t.har'), 'utf8')],
        ['summary', readFileSync(at('summary.md'), 'utf8')],
        ['console', stderr + stdout],
        ['answer header', posted.headers.get('print-conformance-violations') ?? ''],
      ]) {
        expect(text, name).not.toContain(PAYMENT_SECRET);
        expect(text, name).not.toContain(RETURN_SECRET);
      }
    } finally {
      target.close();
    }
  });
});
