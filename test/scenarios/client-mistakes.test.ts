import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { clientBehindProxy } from './client-session.js';

// A client team puts its client behind `proxy -- COMMAND`, with no narrowing flag. A good client
// (JSON-only or XML-only) comes out green; each typical client mistake is caught by its rule on
// the request side. The clients are one script (client.mjs) with one mistake per mode.

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-clients-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

interface Session {
  code: number | null;
  stderr: string;
  /** Every finding recorded, as "rule@side". */
  findings: string[];
}

async function behindProxy(mode: string, options: string[] = []): Promise<Session & { recorded: string[] }> {
  const record = join(folder, `${mode}.ndjson`);
  const result = await clientBehindProxy(service.baseUrl, mode, ['--record', record, ...options]);
  const recorded = readFileSync(record, 'utf8').split('\n').filter(Boolean);
  const findings = recorded.flatMap((line) =>
    ((JSON.parse(line).violations ?? []) as { rule: string; side: string }[]).map((v) => `${v.rule}@${v.side}`),
  );
  return { code: result.code, stderr: result.stderr, findings, recorded };
}

/** Mode → the rule that must catch it on the request side, and the exit code it leads to. */
const MISTAKES: Record<string, { rule: string; exit: number }> = {
  'json-pascal-case': { rule: 'checkout.json.casing', exit: 1 },
  'json-form-labelled-json': { rule: 'format.well-formed', exit: 1 },
  'json-xml-labelled-json': { rule: 'format.well-formed', exit: 1 },
  'json-bom': { rule: 'format.well-formed', exit: 1 },
  'xml-camel-case': { rule: 'checkout.xml.casing', exit: 1 },
  'xml-class-name-root': { rule: 'checkout.xml.root', exit: 1 },
  'xml-declares-utf16': { rule: 'format.well-formed', exit: 1 },
  'json-return-url-too-long': { rule: 'checkout.return-url.length', exit: 1 },
  'json-return-url-too-short': { rule: 'checkout.return-url.length', exit: 1 },
  'json-billing-flat': { rule: 'checkout.request.schema', exit: 1 },
  'json-billing-string': { rule: 'checkout.request.schema', exit: 1 },
  'json-return-url-number': { rule: 'checkout.request.schema', exit: 1 },
  'json-post-code-number': { rule: 'checkout.request.schema', exit: 1 },
  // A should rule: reported (WARN) without failing the session unless --strict.
  'json-country-name': { rule: 'checkout.country-code', exit: 0 },
  'json-checkout-without-code': { rule: 'client.given-urls', exit: 1 },
  'json-checkout-order-id': { rule: 'client.given-urls', exit: 1 },
  'json-get-order-id': { rule: 'client.given-urls', exit: 1 },
  'json-code-lower-cased': { rule: 'client.given-urls', exit: 1 },
  'json-upload-order-id-content': { rule: 'client.given-urls', exit: 1 },
  'json-upload-octet-stream': { rule: 'upload.content-type', exit: 1 },
  'json-upload-text-plain': { rule: 'upload.content-type', exit: 1 },
  'json-upload-multipart-octet-stream': { rule: 'upload.content-type', exit: 1 },
  'json-upload-png-labelled-pdf': { rule: 'upload.content-sniff', exit: 0 },
};

describe('a client behind proxy -- COMMAND, with no narrowing flag', () => {
  it.each([
    'good-json',
    'good-xml',
    'good-browser-json',
    'good-accept-anything',
    'good-no-accept',
    'good-text-xml',
    'good-without-return-url',
  ])('%s: exit 0, nothing found on either side, nothing left untested', async (mode) => {
    const session = await behindProxy(mode);
    expect(session.findings).toEqual([]);
    expect(session.stderr).toContain('0 failed, 0 warnings, 0 untested');
    expect(session.stderr).not.toMatch(/^(UNTESTED|untested|WARN|FAIL) /m);
    expect(session.stderr).toMatch(/Not exercised by this traffic \(their rules skipped\): (JSON|XML)\n/);
    expect(session.code).toBe(0);
    if (mode === 'good-browser-json')
      expect(session.stderr).toMatch(/Not the interface \(judged by no rule\): 4× CORS preflight \(OPTIONS\)/);
  });

  it.each(Object.entries(MISTAKES))('%s: caught by %o on the request side', async (mode, { rule, exit }) => {
    const session = await behindProxy(mode);
    expect(session.findings).toContain(`${rule}@request`);
    expect(session.stderr).toMatch(new RegExp(`(FAIL|WARN) +${rule.replace(/\./g, '\\.')} `));
    expect(session.code).toBe(exit);
  });

  it('--mode enforce: a set-up to a URL built by hand never reaches the service', async () => {
    const session = await behindProxy('json-checkout-order-id', ['--mode', 'enforce']);
    const blocked = session.recorded.map((line) => JSON.parse(line)).filter((exchange) => exchange.blocked);
    expect(blocked).toHaveLength(1);
    expect(blocked[0].request.method).toBe('POST');
    expect(blocked[0].response.status).toBe(400);
    expect(blocked[0].response.body.text).toContain('client.given-urls');
    expect(session.code).toBe(1);
  });
});
