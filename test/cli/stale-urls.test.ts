import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';

// A stale or foreign checkout/upload URL shows nothing of the service: every request to it gets
// the same 404. The run could not be made (exit 2, one line naming the URL), it is not a failure
// of six rules with a page of reproductions.

let service: ReferenceService;
let reports: string;
beforeAll(async () => {
  service = await startReferenceService();
  reports = mkdtempSync(join(tmpdir(), 'print-conformance-stale-'));
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

describe('run with a stale or foreign URL', () => {
  it('exits 2 naming the checkout URL whose every request was answered 404', async () => {
    const stale = `${service.baseUrl}checkout/EXPIRED0000000000000`;
    const result = await runCli(['--checkout-url', stale, '--quiet', '--report-dir', reports]);
    expect(result.stderr).toBe(
      `print-conformance: every checkout request to ${stale} was answered 404: the checkout URL is stale or not this service's; take a fresh checkout.setupUrl from the order (GET orders/{id}, or --order-id), or leave --checkout-url out to place an order\n`,
    );
    expect(result.stdout).toBe('');
    expect(result.code).toBe(2);
  });

  it('stops probing at the evidence: a few requests, one line per group of probes, then the one line', async () => {
    let requests = 0;
    const gone = createServer((request, response) => {
      requests += 1;
      request.resume();
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
    });
    await new Promise<void>((listening) => gone.listen(0, '127.0.0.1', listening));
    try {
      const base = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/v2/`;
      const result = await runCli([
        '--checkout-url',
        `${base}checkout/EXPIRED0000000000000`,
        '--upload-url',
        `${base}files/EXPIRED0000000000000`,
        '--report-dir',
        reports,
      ]);
      expect(result.code).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines.at(-1)).toMatch(/^print-conformance: every checkout request to \S+ was answered 404: /);
      expect(lines.length, result.stderr).toBeLessThanOrEqual(4);
      expect(result.stderr).not.toContain('✗');
      // One group of checkout probes (three dozen requests), not every group of both formats and the
      // uploads (over a hundred and fifty).
      expect(requests).toBeLessThan(45);
    } finally {
      await new Promise((closed) => gone.close(closed));
    }
  });

  it('exits 2 naming the upload URL whose every upload was answered 404', async () => {
    const { checkout, upload } = await freshOrder();
    const result = await runCli([
      '--checkout-url',
      checkout,
      '--upload-url',
      `${upload}-gone`,
      '--quiet',
      '--report-dir',
      reports,
    ]);
    expect(result.stderr).toMatch(
      /^print-conformance: every upload to \S+-gone was answered 404: the upload URL is stale/,
    );
    expect(result.code).toBe(2);
  });

  it('runs as usual with the URLs the order gave', async () => {
    const { checkout, upload } = await freshOrder();
    const result = await runCli([
      '--checkout-url',
      checkout,
      '--upload-url',
      upload,
      '--quiet',
      '--report-dir',
      reports,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
