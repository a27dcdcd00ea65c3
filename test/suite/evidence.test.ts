import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect, OutgoingAnswer } from '../../src/reference/dialect.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';

// A verdict needs evidence: against services that never let a rule be tested, the suite says
// `untested`, never `passed`, and the exit code, the console and every report agree.

const refuseInterface =
  (status: number) =>
  (answer: OutgoingAnswer): OutgoingAnswer =>
    answer.endpoint === 'checkout' || answer.endpoint === 'upload'
      ? {
          ...answer,
          status,
          format: 'json',
          headers: { 'content-type': 'application/json' },
          body: '{"message":"refused"}',
        }
      : answer;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  rules: Map<string, { status: string; reason?: string; evidence: number }>;
  summary: Record<string, number>;
  junit: string;
}

async function runAgainst(service: ReferenceService, args: string[] = []): Promise<Run> {
  const reports = mkdtempSync(join(tmpdir(), 'print-conformance-evidence-'));
  try {
    const result = await runCli(['run', '--base-url', service.baseUrl, '--quiet', '--report-dir', reports, ...args]);
    let json: {
      rules: { id: string; status: string; reason?: string; evidence: number }[];
      summary: Record<string, number>;
    };
    let junit = '';
    try {
      json = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'));
      junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
    } catch {
      json = { rules: [], summary: {} };
    }
    return { ...result, rules: new Map(json.rules.map((r) => [r.id, r])), summary: json.summary, junit };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

async function withService(dialect: Partial<Dialect>, test: (service: ReferenceService) => Promise<void>) {
  const service = await startReferenceService({ dialect });
  try {
    await test(service);
  } finally {
    await service.close();
  }
}

const NEEDS_ACCEPTED_ANSWERS = [
  'checkout.xml.tax-nil',
  'checkout.xml.root',
  'checkout.json.no-tax',
  'checkout.status.open',
  'checkout.echo',
  'checkout.get.consistent',
  'upload.file-type',
  'upload.xml.root',
  'upload.response.schema',
];

describe('evidence behind every verdict', () => {
  it('leaves the rules of a service refusing every request with 400 untested, and fails the run', async () => {
    await withService({ rewrite: refuseInterface(400) }, async (service) => {
      const run = await runAgainst(service);
      expect(run.code, run.stderr).toBe(1);
      for (const id of NEEDS_ACCEPTED_ANSWERS) {
        expect(run.rules.get(id)?.status, id).toBe('untested');
        expect(run.rules.get(id)?.evidence, id).toBe(0);
      }
      expect(run.rules.get('checkout.xml.tax-nil')?.reason).toMatch(
        /every POST checkout \(\d+\) was answered 400 JSON/,
      );
      expect(run.summary.untested).toBeGreaterThanOrEqual(NEEDS_ACCEPTED_ANSWERS.length);
      expect(run.stdout).toMatch(/UNTESTED\s+checkout\.xml\.tax-nil/);
      expect(run.junit).toMatch(/name="checkout\.xml\.tax-nil" time="0"><skipped message="untested: /);
    });
  });

  it('passes nothing and fails the run when only rules without evidence are selected', async () => {
    await withService({ rewrite: refuseInterface(400) }, async (service) => {
      const run = await runAgainst(service, [
        '--only',
        'checkout.xml.tax-nil,checkout.status.open,checkout.echo,upload.file-type,upload.response.schema',
      ]);
      expect(run.code).toBe(1);
      expect(run.summary.passed).toBe(0);
      expect(run.stdout).toMatch(/0 passed, 0 failed, 0 warnings, 5 untested/);
    });
  });

  it('stops with exit 2 and one line about the credentials when every request is refused with 401', async () => {
    await withService({ rewrite: refuseInterface(401) }, async (service) => {
      const run = await runAgainst(service);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n').at(-1)).toMatch(
        /every request was refused with 401\/403: check the credentials/,
      );
    });
  });

  it('leaves the XML rules untested when no XML answer ever comes', async () => {
    await withService({ honourAccept: false }, async (service) => {
      const run = await runAgainst(service);
      expect(run.code).toBe(1);
      for (const id of ['checkout.xml.tax-nil', 'checkout.xml.casing', 'checkout.xml.root', 'upload.xml.root'])
        expect(run.rules.get(id)?.status, id).toBe('untested');
      expect(run.rules.get('format.xml')?.status).toBe('failed');
    });
  });

  describe('against the reference service with --strict', () => {
    let run: Run;
    let service: ReferenceService;
    beforeAll(async () => {
      service = await startReferenceService();
      run = await runAgainst(service, ['--strict']);
    });
    afterAll(() => service.close());

    it('exits 0, and the console, results.json and junit.xml tell the same story', () => {
      expect(run.code, run.stdout).toBe(0);
      expect(run.summary).toMatchObject({ failed: 0, warnings: 0, untested: 0 });
      expect(run.stdout).toMatch(/\b0 failed, 0 warnings, 0 untested\b/);
      expect(run.junit).toMatch(/failures="0"/);
      expect(run.junit).not.toContain('<failure');
      // An observe rule is reported, never failed, with or without --strict.
      expect(run.rules.get('checkout.response.extra')?.status).toBe('observed');
    });

    it('writes one JUnit test case per rule, with its area as classname', () => {
      const cases = [...run.junit.matchAll(/<testcase classname="(\w+)" name="([^"]+)"/g)];
      expect(cases.length).toBe(run.rules.size);
      expect(cases.find((c) => c[2] === 'http.no-server-error')?.[1]).toBe('http');
      expect(cases.find((c) => c[2] === 'checkout.xml.tax-nil')?.[1]).toBe('checkout');
    });
  });
});

describe('a run given only the checkout and upload URLs', () => {
  it('reports the service those URLs name as its target, never the embedded one', async () => {
    await withService({}, async (service) => {
      const order = (await (
        await fetch(`${service.baseUrl}orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ items: [{ productId: 'boek', quantity: 1 }] }),
        })
      ).json()) as { checkout: { setupUrl: string }; items: { files: { content: { uploadUrl: string } } }[] };
      const reports = mkdtempSync(join(tmpdir(), 'print-conformance-urls-'));
      try {
        const result = await runCli([
          'run',
          '--checkout-url',
          order.checkout.setupUrl,
          '--upload-url',
          order.items[0]?.files.content.uploadUrl ?? '',
          '--report-dir',
          reports,
        ]);
        expect(result.stderr).not.toContain('embedded reference service');
        const json = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'));
        expect(json.target).toBe(service.baseUrl);
        expect(result.code, result.stdout).toBe(0);
      } finally {
        rmSync(reports, { recursive: true, force: true });
      }
    });
  });

  it('refuses a checkout URL it cannot tell the base from, in one line', async () => {
    const result = await runCli(['run', '--checkout-url', 'http://127.0.0.1:9/pay/abc']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/does not end in checkout\/\{code\}.*give --base-url too/);
  });
});
