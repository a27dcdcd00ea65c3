import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { loadOrCreateCa } from '../../src/tls/local-ca.js';
import { onPath } from '../helpers/peers.js';

// A client that verifies against a CA bundle of its own (curl --cacert, Guzzle's verify) refuses
// the certificate the proxy shows for an intercepted host: it says only that TLS failed, and no
// request comes. The proxy says so at once, in one line, and keeps it for the control API.

describe.skipIf(!onPath('curl'))('a TLS handshake the client refuses', () => {
  it('is told in one line, once per host, listed by the control API and shown as a row on the live page', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-handshakes-'));
    const other = await loadOrCreateCa(join(folder, 'other-ca'));
    const logged: string[] = [];
    const proxy = await startProxy({
      target: 'https://test.printapi.nl/v2/',
      caDir: join(folder, 'ca'),
      log: (line) => logged.push(line),
    });
    const curl = () =>
      new Promise<number>((resolve) => {
        execFile(
          'curl',
          ['-sS', '-x', proxy.url, '--cacert', other.certPath, 'https://test.printapi.nl/v2/orders'],
          (error) => resolve((error as { code?: number } | null)?.code ?? 0),
        );
      });
    try {
      // curl: (60) SSL certificate problem: self-signed certificate in certificate chain
      expect(await curl()).toBe(60);
      expect(await curl()).toBe(60);
      const told = logged.filter((line) => line.includes('refused the TLS handshake'));
      expect(told).toEqual([
        expect.stringMatching(
          /^print-conformance proxy: a client refused the TLS handshake for test\.printapi\.nl \(its alert: unknown ca\): it does not trust the proxy's local CA.*curl --cacert.*docs\/interception\.md/,
        ),
      ]);
      const listed = (await (await fetch(`${proxy.url}__print-conformance/api/handshakes`)).json()) as {
        count: number;
        handshakes: { host: string; port: number; alert: string; cause: string }[];
      };
      expect(listed.count).toBe(2);
      expect(listed.handshakes[0]).toMatchObject({ host: 'test.printapi.nl', port: 443, alert: 'unknown ca' });
      expect(proxy.traffic.refusedHandshakeLines()).toEqual(['2× test.printapi.nl:443 (unknown ca)']);
      // Rows of their own among the exchanges, as the live page lists them.
      const rows = (await (await fetch(`${proxy.url}__print-conformance/api/exchanges?after=0`)).json()) as {
        exchanges: {
          method: string;
          url: string;
          judged: boolean;
          refusedHandshake?: { host: string; reason: string };
        }[];
      };
      expect(rows.exchanges).toEqual([
        expect.objectContaining({
          method: 'CONNECT',
          url: 'https://test.printapi.nl/',
          judged: false,
          refusedHandshake: {
            host: 'test.printapi.nl',
            reason: expect.stringMatching(/^unknown ca: it does not trust/),
          },
        }),
        expect.objectContaining({ method: 'CONNECT' }),
      ]);
      const page = await (await fetch(`${proxy.url}__print-conformance/`)).text();
      expect(page).toContain('test.printapi.nl');
    } finally {
      await proxy.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
