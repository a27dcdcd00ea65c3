import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/contract/rules.js';
import { discoverUrls, secondCheckout } from '../../src/http/discover.js';
import { probeService, type SuiteConfig } from '../../src/probes/index.js';
import { ProbeRun } from '../../src/probes/probe-run.js';
import type { Dialect } from '../../src/reference/dialect.js';
import { startReferenceService } from '../../src/reference/service.js';
import { emptyTally } from '../../src/validate/tally.js';

// observe.methods and observe.caching: what the suite records of the methods the interface does not
// name and of the caching headers of GET checkout, against variants of the reference service.

async function observed(dialect: Partial<Dialect>, readOnly = false) {
  const service = await startReferenceService({ dialect });
  try {
    const discovery = { baseUrl: service.baseUrl, headers: {}, readOnly: false, secrets: [], timeoutMs: 30_000 };
    const urls = await discoverUrls(discovery);
    const second = await secondCheckout(discovery);
    const config: SuiteConfig = {
      baseUrl: service.baseUrl,
      checkoutUrl: urls.checkoutUrl,
      ...(second.checkoutUrl && !readOnly ? { secondCheckoutUrl: second.checkoutUrl } : {}),
      uploadUrls: urls.uploadUrls,
      headers: {},
      credentialHeaders: [],
      secrets: [],
      formats: ['json', 'xml'],
      uploadTypes: ['pdf'],
      selected: RULES.filter((rule) => rule.area === 'observe' || rule.id === 'http.no-server-error').map((r) => r.id),
      strict: false,
      readOnly,
      timeoutMs: 30_000,
      preflight: emptyTally(),
    };
    const run = new ProbeRun(config);
    await probeService(run);
    const { observations, findings } = run.tally.data;
    return {
      methods: observations['observe.methods'] as Record<string, { status: number | string; allow?: string }>,
      caching: observations['observe.caching'] as Record<string, Record<string, string>>,
      serverErrors: findings.filter((f) => f.rule === 'http.no-server-error').map((f) => f.message),
      sent: run.exchanges.map((e) => e.request.method),
    };
  } finally {
    await service.close();
  }
}

/** GET checkout answers with these headers added. */
const withHeaders = (headers: Record<string, string>): Partial<Dialect> => ({
  rewrite: (answer) =>
    answer.endpoint === 'checkout' && answer.method === 'GET' && answer.status === 200
      ? { ...answer, headers: { ...answer.headers, ...headers } }
      : answer,
});

describe.concurrent('observe.methods', () => {
  it('records HEAD, OPTIONS, PUT, DELETE on a checkout and GET on an upload URL, with Allow', async () => {
    const { methods, serverErrors } = await observed({});
    expect(Object.keys(methods)).toEqual([
      'HEAD checkout',
      'OPTIONS checkout',
      'PUT checkout',
      'DELETE checkout',
      'GET files',
    ]);
    expect(methods['OPTIONS checkout']).toMatchObject({ status: 405, allow: 'GET, POST' });
    expect(methods['GET files']).toMatchObject({ status: 405, allow: 'POST' });
    expect(serverErrors).toEqual([]);
  });

  it('lists a 5xx first, and fails http.no-server-error on it', async () => {
    const { methods, serverErrors } = await observed({
      rewrite: (a) => (a.method === 'DELETE' ? { ...a, status: 500, body: '{"message":"boom"}' } : a),
    });
    expect(Object.keys(methods)[0]).toBe('DELETE checkout');
    expect(serverErrors.join()).toMatch(/DELETE .* was answered 500/);
  });

  it('sends no PUT or DELETE with --read-only', async () => {
    const { methods, sent } = await observed({}, true);
    expect(sent).not.toContain('PUT');
    expect(sent).not.toContain('DELETE');
    expect(methods['PUT and DELETE checkout']).toBe('not sent (--read-only)');
  });
});

describe.concurrent('observe.caching', () => {
  it('says no cache keeps an answer without caching headers', async () => {
    const { caching } = await observed({});
    expect(caching['GET checkout']?.verdict).toMatch(/no cache keeps it/);
  });

  it('names a Status a cache may keep, and the format it may mix up without Vary: Accept', async () => {
    const { caching } = await observed(withHeaders({ 'cache-control': 'public, max-age=60' }));
    expect(caching['GET checkout']).toMatchObject({ 'cache-control': 'public, max-age=60' });
    expect(caching['GET checkout']?.verdict).toMatch(/may keep Status for 60 s .*stale.*without Vary: Accept/);
    const varied = await observed(withHeaders({ 'cache-control': 'max-age=60', vary: 'Accept' }));
    expect(varied.caching['GET checkout']?.verdict).toMatch(/may keep Status for 60 s/);
    expect(varied.caching['GET checkout']?.verdict).not.toMatch(/Vary/);
  });

  it('takes no-store, no-cache and max-age=0 for answers no cache serves unasked', async () => {
    for (const value of ['no-store', 'no-cache, max-age=600', 'max-age=0']) {
      const { caching } = await observed(withHeaders({ 'cache-control': value }));
      expect(caching['GET checkout']?.verdict, value).not.toMatch(/may keep/);
    }
  });
});
