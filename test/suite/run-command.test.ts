import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RULES, type RuleId, ruleById } from '../../src/contract/rules.js';
import { startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';

const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-run-'));
  folders.push(folder);
  return folder;
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** Every file under a folder, as text, for secret hunting. */
function allText(folder: string): string {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

describe('print-conformance run', () => {
  it('with no options runs against the embedded reference service, green, with every report', async () => {
    const reports = tempFolder();
    const result = await runCli(['--report-dir', reports]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toContain('(embedded reference service)');
    expect(result.stderr).toMatch(/^checkout \[json\] +\d+ requests; \d+ refused, as the probes meant$/m);
    expect(result.stdout).toMatch(/pass\s+checkout\.echo +must +json \d+, xml \d+ exchanges/);
    expect(result.stdout).toContain('Service profile');

    const json = readJson(join(reports, 'results.json'));
    expect(json).toMatchObject({
      tool: 'print-conformance',
      target: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v2\/$/),
    });
    expect(json.summary).toEqual({
      passed: expect.any(Number),
      failed: 0,
      warnings: 0,
      untested: 0,
      skipped: expect.any(Number),
      observed: expect.any(Number),
    });
    expect(json.rules.map((r: { id: string }) => r.id)).toEqual(RULES.map((r) => r.id));
    expect(json.profile['observe.default-format']).toEqual({ 'GET checkout without Accept': 'JSON' });

    const junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase classname="checkout" name="checkout\.xml\.tax-nil"/);
    const allure = readdirSync(join(reports, 'allure-results')).filter((f) => f.endsWith('-result.json'));
    const results = allure.map((f) => readJson(join(reports, 'allure-results', f)));
    const taxNil = results.find((r) => r.name === 'checkout.xml.tax-nil');
    expect(taxNil.labels).toEqual(
      expect.arrayContaining([
        { name: 'rule', value: 'checkout.xml.tax-nil' },
        { name: 'severity', value: 'critical' },
        { name: 'seed', value: '§2.2' },
      ]),
    );
  });

  it('reports a failure with the request that showed it, and exits 1', async () => {
    const service = await startReferenceService({ dialect: { returnUrlMax: 513 } });
    const reports = tempFolder();
    try {
      const result = await runCli([
        '--base-url',
        service.baseUrl,
        '--report-dir',
        reports,
        '--quiet',
        '--format',
        'json',
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/FAIL\s+checkout\.return-url\.length/);
      expect(result.stdout).toContain('must be rejected (4xx) but was answered 201');
      const rule = readJson(join(reports, 'results.json')).rules.find(
        (r: { id: string }) => r.id === 'checkout.return-url.length',
      );
      expect(rule.status).toBe('failed');
      expect(rule.failures[0].exchange).toMatchObject({ method: 'POST', status: 201 });
    } finally {
      await service.close();
    }
  });

  it('counts a broken should rule as a warning, failing only with --strict', async () => {
    const rewrite = (a: { endpoint: string; method: string; body: string }) =>
      a.endpoint === 'checkout' ? { ...a, body: a.body.replace(/http:\/\/[^/]+\/v2\/payments\//, '/payments/') } : a;
    const service = await startReferenceService({ dialect: { rewrite: rewrite as never } });
    try {
      const args = ['--base-url', service.baseUrl, '--quiet', '--only', 'checkout.'];
      const lenient = await runCli([...args, '--report-dir', tempFolder()]);
      expect(lenient.code).toBe(0);
      expect(lenient.stdout).toMatch(/WARN\s+checkout\.payment-url/);
      const strict = await runCli([...args, '--report-dir', tempFolder(), '--strict']);
      expect(strict.code).toBe(1);
    } finally {
      await service.close();
    }
  });

  it('--only and --skip select by ID and prefix; the others are skipped', async () => {
    const reports = tempFolder();
    const result = await runCli(['--report-dir', reports, '--quiet', '--only', 'upload.', '--skip', 'upload.raw']);
    expect(result.code).toBe(0);
    const rules = readJson(join(reports, 'results.json')).rules as { id: RuleId; status: string }[];
    for (const rule of rules) {
      const facts = ruleById(rule.id);
      const expected =
        facts.area === 'upload' && rule.id !== 'upload.raw' && facts.faces.includes('suite') ? 'passed' : 'skipped';
      expect(`${rule.id}: ${rule.status}`).toBe(`${rule.id}: ${expected}`);
    }
  });

  it('--upload-size streams one large upload and records its answer in the profile', async () => {
    const reports = tempFolder();
    const result = await runCli([
      '--report-dir',
      reports,
      '--quiet',
      '--only',
      'observe.large-upload',
      '--upload-size',
      '5MiB',
    ]);
    expect(result.code).toBe(0);
    const json = readJson(join(reports, 'results.json'));
    expect(json.profile['observe.large-upload']).toEqual({
      '5242880 bytes': { status: 200, seconds: expect.any(Number) },
    });
  });

  it('--read-only with --checkout-url only reads', async () => {
    const service = await startReferenceService();
    try {
      const order = service.store.placeOrder([{ productId: 'book', quantity: 1 }]);
      const checkoutUrl = `${service.baseUrl}checkout/${order.checkout}`;
      const reports = tempFolder();
      const result = await runCli([
        '--base-url',
        service.baseUrl,
        '--checkout-url',
        checkoutUrl,
        '--read-only',
        '--report-dir',
        reports,
        '--quiet',
      ]);
      expect(result.code, result.stdout).toBe(0);
      const rules = readJson(join(reports, 'results.json')).rules as { id: string; status: string }[];
      expect(rules.find((r) => r.id === 'checkout.echo')?.status).toBe('skipped');
      expect(rules.find((r) => r.id === 'checkout.get.shape')?.status).toBe('passed');
      expect(service.store.checkouts.get(order.checkout)?.setUp).toBe(false);
      expect([...service.store.uploads.values()].every((slot) => slot.status === 'AwaitingUpload')).toBe(true);
    } finally {
      await service.close();
    }
  });

  it('finds the URLs by --order-id, and by a placed order with --order-body', async () => {
    const service = await startReferenceService();
    try {
      const order = service.store.placeOrder([{ productId: 'book', quantity: 1 }]);
      const byId = await runCli([
        '--base-url',
        service.baseUrl,
        `--order-id=${order.id}`,
        '--report-dir',
        tempFolder(),
        '--quiet',
      ]);
      expect(byId.code).toBe(0);
      expect(service.store.checkouts.get(order.checkout)?.setUp).toBe(true);
      const body = join(tempFolder(), 'order.json');
      writeFileSync(body, JSON.stringify({ items: [{ productId: 'poster', quantity: 3 }] }));
      const placed = await runCli([
        '--base-url',
        service.baseUrl,
        '--order-body',
        body,
        '--report-dir',
        tempFolder(),
        '--quiet',
      ]);
      expect(placed.code).toBe(0);
      expect([...service.store.orders.values()].some((o) => o.items[0]?.productId === 'poster')).toBe(true);
    } finally {
      await service.close();
    }
  });

  it('sends a bearer token from the environment and writes it nowhere', async () => {
    const token = 'tok-5ecret-7d1f0e';
    const service = await startReferenceService({ token });
    const reports = tempFolder();
    try {
      const refused = await runCli(['--base-url', service.baseUrl, '--report-dir', tempFolder(), '--quiet']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^print-conformance: POST http:\S+\/orders answered 401/);
      const result = await runCli(['--base-url', service.baseUrl, '--report-dir', reports], {
        env: { PRINT_CONFORMANCE_TOKEN: token },
      });
      expect(result.code, result.stdout).toBe(0);
      expect(readJson(join(reports, 'results.json')).profile['observe.auth']).toEqual({
        'GET checkout without credentials': 401,
      });
      for (const text of [result.stdout, result.stderr, allText(reports)]) expect(text).not.toContain(token);
    } finally {
      await service.close();
    }
  });

  it('gets a token by OAuth client credentials and writes neither secret nor token anywhere', async () => {
    const secret = 'cl1ent-s3cret-9a8b';
    const service = await startReferenceService({ clientId: 'acme', clientSecret: secret });
    const reports = tempFolder();
    try {
      // --verbose: every request's line is shown, and none may carry the token.
      const result = await runCli(
        ['--base-url', service.baseUrl, '--client-id', 'acme', '--verbose', '--report-dir', reports],
        {
          env: { PRINT_CONFORMANCE_CLIENT_SECRET: secret },
        },
      );
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const everything = [result.stdout, result.stderr, allText(reports)].join('\n');
      expect(everything).not.toContain(secret);
      expect(everything).not.toMatch(/Bearer [A-Za-z0-9_-]{20,}/);
      const wrong = await runCli([
        '--base-url',
        service.baseUrl,
        '--client-id',
        'acme',
        '--client-secret',
        'nope',
        '--report-dir',
        tempFolder(),
      ]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(
        /oauth answered 401 without an access_token; check --client-id and --client-secret\n$/,
      );
    } finally {
      await service.close();
    }
  });

  it('reads every option before it sends anything: a typo places no order on the service', async () => {
    const requests: string[] = [];
    const service = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.writeHead(500).end();
    });
    service.listen(0, '127.0.0.1');
    await once(service, 'listening');
    const { port } = service.address() as AddressInfo;
    try {
      for (const args of [
        ['--generate', 'abc'],
        ['--generate', '5', '--seed', '-1'],
      ]) {
        const result = await runCli([
          '--base-url',
          `http://127.0.0.1:${port}/v2/`,
          ...args,
          '--report-dir',
          tempFolder(),
        ]);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      }
      expect(requests).toEqual([]);
    } finally {
      service.close();
    }
  });

  it("leaves no earlier run's reports behind when an option is refused, by yargs or by the command", async () => {
    for (const args of [
      ['--format', 'xmlx'],
      ['--upload-types', 'gif'],
    ]) {
      const reports = tempFolder();
      writeFileSync(join(reports, 'results.json'), '{"summary":{"failed":0}}');
      writeFileSync(join(reports, 'junit.xml'), '<testsuites/>');
      writeFileSync(join(reports, 'notes.txt'), 'mine');
      const result = await runCli(['--base-url', 'http://127.0.0.1:9/v2/', ...args, '--report-dir', reports]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(readdirSync(reports).sort(), args.join(' ')).toEqual(['notes.txt']);
    }
    // Help changes nothing.
    const kept = tempFolder();
    writeFileSync(join(kept, 'results.json'), '{}');
    await runCli(['validate', '--help', '--report-dir', kept]);
    expect(readdirSync(kept)).toEqual(['results.json']);
  });

  it('says in one line, exit 2, what cannot be run', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--base-url', 'http://127.0.0.1:9/v2/'],
        /^print-conformance: cannot reach the service: POST http:\/\/127\.0\.0\.1:9\/v2\/orders failed .*check --base-url\n$/,
      ],
      [['--base-url', 'not a url'], /^print-conformance: --base-url not a url is not an absolute http\(s\) URL\n$/],
      [
        ['--only', 'checkout.nope'],
        /^print-conformance: no rule matches checkout\.nope \(did you mean checkout\.echo\?\); see "print-conformance rules"\n$/,
      ],
      [['--upload-types', 'gif'], /^print-conformance: --upload-types gif is not one of pdf, png, jpeg\n$/],
      [
        ['--format', 'yaml'],
        /^print-conformance: --format yaml is not one of json, xml, both \(did you mean xml\?\); see --help\n$/,
      ],
      [['--header', 'no-colon'], /^print-conformance: --header "no-colon" is not "Name: value"\n$/],
      [
        ['--order-body', '/nonexistent/order.json'],
        /^print-conformance: --order-body \/nonexistent\/order\.json: no such file\n$/,
      ],
      [['--timeout', 'abc'], /^print-conformance: --timeout needs a number of at least 0\.001\n$/],
      [
        ['--report-dir', '/etc/hostname/r'],
        /^print-conformance: --report-dir \/etc\/hostname\/r: cannot write there \(a part of its path is not a folder\)\n$/,
      ],
      [['--read-only'], /^print-conformance: --read-only places no order: give --checkout-url or --order-id\n$/],
      [
        ['--json-report', '/tmp/print-conformance-same.out', '--junit', '/tmp/print-conformance-same.out'],
        /^print-conformance: --json-report and --junit name the same file, \/tmp\/print-conformance-same\.out: give each its own\n$/,
      ],
    ];
    for (const [args, message] of cases) {
      const reports = args.includes('--report-dir') ? [] : ['--report-dir', tempFolder()];
      const result = await runCli([...args, ...reports, '--quiet']);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});
