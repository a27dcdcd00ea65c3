import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { clientLabels } from '../../src/control/client-labels.js';
import { answerOperation } from '../../src/operations/answer-operation.js';
import { OperationsMetrics } from '../../src/operations/metrics.js';
import { Webhooks } from '../../src/reference/webhooks.js';

async function sample(metrics: OperationsMetrics, name: string): Promise<string> {
  return (await metrics.registry.metrics())
    .split('\n')
    .filter((line) => line.startsWith(name))
    .join('\n');
}

describe('operations metrics', () => {
  it('names the operation of an answer from its method and path, anything else `other`', () => {
    const base = 'https://svc.test/v2/';
    expect(answerOperation('POST', `${base}checkout/abc`, base)).toBe('post-checkout');
    expect(answerOperation('GET', `${base}checkout/abc?x=1`, base)).toBe('get-checkout');
    expect(answerOperation('GET', `${base}orders`, base)).toBe('get-orders');
    expect(answerOperation('POST', `${base}oauth`, base)).toBe('post-oauth');
    expect(answerOperation('DELETE', `${base}checkout/abc`, base)).toBe('other');
    expect(answerOperation('GET', `${base}checkoutx/abc`, base)).toBe('other');
    expect(answerOperation('GET', 'https://other.test/v2/checkout/abc', base)).toBe('other');
  });

  it('counts exchanges and breaches per client under a bounded label, the rest `other`', async () => {
    const metrics = new OperationsMetrics('proxy', { defaultMetrics: false });
    metrics.labelClients(clientLabels(2));
    const breach = { rule: 'client.given-urls', severity: 'must', side: 'request' } as const;
    for (const client of ['shop-a', 'shop-b', 'shop-c', 'shop-a', 'shop-d'])
      metrics.exchange('broken', [breach], client);
    metrics.exchange('clean', []);
    const exchanges = await sample(metrics, 'print_conformance_exchanges_total');
    expect(exchanges).toContain('print_conformance_exchanges_total{face="proxy",client="shop-a",verdict="broken"} 2');
    expect(exchanges).toContain('print_conformance_exchanges_total{face="proxy",client="shop-b",verdict="broken"} 1');
    expect(exchanges).toContain('print_conformance_exchanges_total{face="proxy",client="other",verdict="broken"} 2');
    expect(exchanges).toContain('print_conformance_exchanges_total{face="proxy",verdict="clean"} 1');
    expect(exchanges).not.toContain('shop-c');
    const breaches = await sample(metrics, 'print_conformance_breaches_total');
    expect(breaches).toContain('client="other"} 2');
    expect(breaches).toContain('client="shop-a"} 2');
  });

  it('counts recording write failures by a bounded reason', async () => {
    const metrics = new OperationsMetrics('proxy', { defaultMetrics: false });
    metrics.recordingWriteFailed('write');
    metrics.recordingWriteFailed('stalled');
    metrics.recordingWriteFailed('/home/someone/traffic.ndjson: ENOSPC');
    expect(await sample(metrics, 'print_conformance_recording_write_failures_total')).toBe(
      [
        'print_conformance_recording_write_failures_total{reason="write"} 1',
        'print_conformance_recording_write_failures_total{reason="stalled"} 1',
        'print_conformance_recording_write_failures_total{reason="other"} 1',
      ].join('\n'),
    );
  });

  it("counts serve's webhook tries by outcome", async () => {
    let calls = 0;
    const shop = createServer((request, response) => {
      request.resume();
      calls += 1;
      response.writeHead(calls === 1 ? 503 : 204).end();
    }).listen(0, '127.0.0.1');
    await once(shop, 'listening');
    const metrics = new OperationsMetrics('serve', { defaultMetrics: false });
    const webhooks = new Webhooks({
      urls: [`http://127.0.0.1:${(shop.address() as AddressInfo).port}/hook`],
      retryDelaysMs: [10],
      log: (_line, tried) => tried && metrics.webhookTried(tried.outcome),
    });
    webhooks.notify('order-1');
    await webhooks.settled();
    await webhooks.close();
    shop.close();
    expect(await sample(metrics, 'print_conformance_webhook_tries_total')).toBe(
      [
        'print_conformance_webhook_tries_total{outcome="delivered"} 1',
        'print_conformance_webhook_tries_total{outcome="refused"} 1',
        'print_conformance_webhook_tries_total{outcome="no answer"} 0',
      ].join('\n'),
    );
  });
});
