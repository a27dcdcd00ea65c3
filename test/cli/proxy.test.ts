import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';
import { setUpWithShortReturnUrl } from '../helpers/proxy-fixture.js';

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-proxy-cli-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

async function startProxyCli(args: string[]) {
  const proxy = await startListeningCli(['proxy', '--target', service.baseUrl, ...args]);
  return {
    url: proxy.url,
    stop: async () => {
      const { code, stderr, stdout } = await proxy.stop();
      return { code: code as number, stderr, stdout };
    },
  };
}

describe('print-conformance proxy', () => {
  it('prints one listening line, records, and on SIGTERM prints the verdicts and exits 1 for a broken must rule', async () => {
    const record = join(folder, 'cli.ndjson');
    const summary = join(folder, 'summary.md');
    const proxy = await startProxyCli(['--record', record, '--summary-md', summary]);
    // Loopback unless --host says otherwise.
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const bad = await setUpWithShortReturnUrl(proxy.url);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('print-conformance-violations')).toBe('checkout.return-url.length (request)');
    const { code, stderr, stdout } = await proxy.stop();
    expect(code).toBe(1);
    expect(stderr).toMatch(/POST \/v2\/checkout\/\w+ → 400 {2}checkout\.return-url\.length \(request\)/);
    // The verdict table goes to stdout, where run prints its own; the exchange log stays on stderr.
    expect(stdout).toMatch(/\nFAIL {6}checkout\.return-url\.length +must +json 1/);
    expect(stdout).toMatch(/\n {8}\[json\] request: ReturnUrl has 4 UTF-16 code units/);
    // The summary, then where the reports went, as run ends.
    expect(stdout).toMatch(
      /\nproxy summary: 2 exchanges, 2 answered by the target\nreports: .*results\.json, .*\nHTML report: .* report.*\n$/,
    );
    expect(stderr).not.toMatch(/VERDICT|proxy summary/);
    expect(readFileSync(record, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(readFileSync(summary, 'utf8')).toMatch(
      /\n\| `checkout\.return-url\.length` \| must \| ❌ failed \| \[json\] request: ReturnUrl has 4 UTF-16 code units.*<br>POST http:\S+\/checkout\/\w+ → 400/,
    );
  });

  // /dev/full refuses every write with ENOSPC: a disk that fills up during a run.
  it.skipIf(!existsSync('/dev/full'))(
    'goes on forwarding when the recording cannot be written, says so, and exits 2 with the rest kept',
    async () => {
      const har = join(folder, 'beside-full.har');
      const proxy = await startProxyCli(['--record', '/dev/full', '--har', har]);
      // An order and two reads of its checkout: exchanges of the interface, so that the session
      // stands or falls by its recording alone.
      const order = await fetch(`${proxy.url}orders`, { method: 'POST' });
      expect(order.status).toBe(201);
      const { checkout } = (await order.json()) as { checkout: { setupUrl: string } };
      for (let index = 0; index < 2; index += 1)
        expect((await fetch(checkout.setupUrl, { headers: { accept: 'application/json' } })).status).toBe(200);
      const { code, stderr, stdout } = await proxy.stop();
      expect(code).toBe(2);
      expect(
        stderr.match(
          /the recording \/dev\/full is incomplete: from exchange 1 on nothing is written to it \(cannot write it: no space left on the device\); forwarding and judging go on/g,
        ),
      ).toHaveLength(1);
      expect(stdout).toMatch(/proxy summary: 3 exchanges, 3 answered by the target/);
      expect(stderr).toMatch(
        /the recording is incomplete \(\/dev\/full: cannot write it: no space left on the device\)\n$/,
      );
      expect(JSON.parse(readFileSync(har, 'utf8')).log.entries).toHaveLength(3);
    },
  );

  it('exits 0 when every rule its traffic could test held, and --no-violations-header keeps answers clean', async () => {
    // One JSON checkout set up: the rules of XML, of reading checkouts back and of uploads are not
    // what this traffic is about.
    const proxy = await startProxyCli([
      '--no-violations-header',
      '--format',
      'json',
      '--skip',
      'upload.,checkout.get.,format.json',
    ]);
    const order = (await (await fetch(`${proxy.url}orders`, { method: 'POST' })).json()) as {
      checkout: { setupUrl: string };
    };
    const good = await fetch(order.checkout.setupUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: checkoutRequestJson(),
    });
    expect(good.status).toBe(201);
    expect(good.headers.get('print-conformance-violations')).toBeNull();
    const { code, stdout } = await proxy.stop();
    expect(stdout).toMatch(/\n\d+ passed, 0 failed, 0 warnings, 0 untested, \d+ skipped/);
    expect(code).toBe(0);
  });

  it('says in one line, exit 2, what is wrong with its options', async () => {
    const missing = await runCli(['proxy']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('print-conformance: Missing required argument: target; see --help\n');
    const bad = await runCli(['proxy', '--target', 'ftp://x']);
    expect(bad.stderr).toBe('print-conformance: --target ftp://x is not an absolute http(s) URL\n');
    const unwritable = await runCli(['proxy', '--target', service.baseUrl, '--record', '/nonexistent/dir/x.ndjson']);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toBe(
      'print-conformance: cannot write the recording: its folder /nonexistent/dir does not exist\n',
    );
    const timeout = await runCli(['proxy', '--target', service.baseUrl, '--connect-timeout', 'soon']);
    expect(timeout.stderr).toBe('print-conformance: --connect-timeout needs a number of at least 0.001\n');
    const rule = await runCli(['proxy', '--target', service.baseUrl, '--only', 'nope']);
    expect(rule.stderr).toMatch(/no rule matches nope/);
    const port = new URL(service.baseUrl).port;
    const taken = await runCli(['proxy', '--target', service.baseUrl, '--port', port]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toBe(`print-conformance: port ${port} on 127.0.0.1 is in use; choose another with --port\n`);
    const summary = await runCli(['proxy', '--target', service.baseUrl, '--summary-md', '/etc/hostname/summary.md']);
    expect(summary.code).toBe(2);
    expect(summary.stderr).toMatch(
      /^print-conformance: --summary-md \/etc\/hostname\/summary\.md: its folder .* cannot be made or written\n$/,
    );
    const silent = await runCli(['proxy', '--target', service.baseUrl, '--client-timeout', '-1']);
    expect(silent.stderr).toBe('print-conformance: --client-timeout needs a number of at least 0\n');
  });
});
