import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Recorder } from '../../proxy/recorder.js';
import { send } from '../../src/http/send.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import type { Exchange } from '../../src/validate/exchange.js';
import { runCli } from '../helpers/cli.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';

// A recording made by the proxy names its target, so validate judges it under the base the proxy
// judged it under, without --base-url: an order answer naming the service by another address (its
// public one, where the proxy reached an internal one) no longer leaves no exchange of the interface.

const PUBLIC = 'https://print.example.test/v2/';

let folder: string;
let service: ReferenceService;
let exchanges: Exchange[];
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-recording-target-'));
  service = await startReferenceService();
  const ordered = await send({
    method: 'POST',
    url: `${service.baseUrl}orders`,
    headers: { accept: 'application/json' },
  });
  const order = JSON.parse(ordered.response?.body?.text ?? '{}');
  const json = { 'content-type': 'application/json', accept: 'application/json' };
  // The order answer names the service by its public address; the proxy reached it at another.
  const text = ordered.response?.body?.text?.replaceAll(service.baseUrl, PUBLIC) ?? '';
  const body = { ...ordered.response?.body, text, size: Buffer.byteLength(text) };
  exchanges = [
    { ...ordered, response: { ...(ordered.response as NonNullable<Exchange['response']>), body } },
    await send({ method: 'POST', url: order.checkout.setupUrl, headers: json, body: checkoutRequestJson() }),
    await send({ method: 'GET', url: order.checkout.setupUrl, headers: { accept: 'application/json' } }),
  ];
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

async function recorded(name: string): Promise<{ ndjson: string; har: string }> {
  const files = { ndjson: join(folder, `${name}.ndjson`), har: join(folder, `${name}.har`) };
  const recorder = new Recorder(files.ndjson, files.har, () => {}, service.baseUrl);
  await recorder.ready();
  for (const exchange of exchanges) recorder.record({ ...exchange, violations: [] });
  await recorder.close();
  return files;
}

describe("a proxy's recording", () => {
  it('names its target in every NDJSON line and in the HAR log', async () => {
    const files = await recorded('named');
    const lines = readFileSync(files.ndjson, 'utf8').trim().split('\n');
    for (const line of lines) expect(JSON.parse(line).target).toBe(service.baseUrl);
    expect(JSON.parse(readFileSync(files.har, 'utf8')).log._target).toBe(service.baseUrl);
  });

  it('is validated under its target without --base-url, as with it', async () => {
    const files = await recorded('judged');
    for (const file of [files.ndjson, files.har]) {
      const named = await runCli(['validate', file, '--base-url', service.baseUrl, '--report-dir', join(folder, 'b')]);
      const alone = await runCli(['validate', file, '--report-dir', join(folder, 'a')]);
      expect(alone.stderr, file).not.toMatch(/no exchange of the interface/);
      expect(alone.code, alone.stderr).toBe(named.code);
      const verdicts = (out: string) =>
        out.split('\n').filter((line) => /^(pass|FAIL|WARN|skip|seen|untested|UNTESTED) /.test(line));
      expect(verdicts(alone.stdout)).toEqual(verdicts(named.stdout));
      expect(alone.stdout, `${file}\n${alone.stdout}`).toMatch(/^pass +checkout\.json\.casing /m);
    }
  });
});
