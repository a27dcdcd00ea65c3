import { afterEach, describe, expect, it } from 'vitest';
import { OperationsMetrics } from '../../src/operations/metrics.js';
import { proxiedService, setUpWithShortReturnUrl } from '../helpers/proxy-fixture.js';
import { openConnection, rawExchange } from '../helpers/raw-http.js';

// Where the proxy counts: refusals by reason, the gauges read when scraped, recording bytes.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

async function scrape(metrics: OperationsMetrics): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const line of (await metrics.registry.metrics()).split('\n')) {
    const match = /^(print_conformance_[a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) found.set(match[1] as string, Number(match[2]));
  }
  return found;
}

describe('the proxy counts', () => {
  it('a request for a Host that is not its own, a request enforce mode blocks, and the bytes recorded', async () => {
    const metrics = new OperationsMetrics('proxy', { defaultMetrics: false });
    const session = await proxiedService({ proxy: { metrics, mode: 'enforce' } });
    cleanup.push(() => session.dispose());
    const answer = await rawExchange(
      session.proxy.url,
      'GET /orders HTTP/1.1\r\nhost: evil.example.test\r\nconnection: close\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect((await setUpWithShortReturnUrl(session.proxy.url)).status).toBe(400);
    const before = await scrape(metrics);
    expect(before.get('print_conformance_refusals_total{reason="host not allowed"}')).toBe(1);
    expect(before.get('print_conformance_refusals_total{reason="enforce"}')).toBe(1);
    expect(before.get('print_conformance_refusals_total{reason="connection limit"}')).toBe(0);
    expect(
      before.get('print_conformance_breaches_total{rule="checkout.return-url.length",severity="must",side="request"}'),
    ).toBe(1);
    await session.recorded();
    const after = await scrape(metrics);
    expect(after.get('print_conformance_recording_bytes_total')).toBeGreaterThan(100);
  });

  it('event streams and client connections open now', async () => {
    const metrics = new OperationsMetrics('proxy', { defaultMetrics: false });
    const session = await proxiedService({ proxy: { metrics } });
    cleanup.push(() => session.dispose());
    const { socket, received } = await openConnection(session.proxy.url);
    socket.write(`GET /__print-conformance/api/events HTTP/1.1\r\nhost: ${new URL(session.proxy.url).host}\r\n\r\n`);
    for (let tries = 0; tries < 50 && !received().includes('retry:'); tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received()).toMatch(/^HTTP\/1\.1 200 /);
    const open = await scrape(metrics);
    expect(open.get('print_conformance_open_event_streams')).toBe(1);
    expect(open.get('print_conformance_open_client_connections')).toBe(1);
    socket.destroy();
  });
});
