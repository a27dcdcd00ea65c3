import { describe, expect, it } from 'vitest';
import { consoleSummary } from '../../src/report/console-summary.js';
import { exitCodeOf, type FormatVerdict, foldVerdicts } from '../../src/report/run-result.js';

const failure = (message: string) => ({
  rule: 'x',
  format: 'json' as const,
  message,
  exchange: {
    method: 'POST',
    url: 'http://s.test/v2/checkout/c',
    requestHeaders: {},
    status: 201,
    responseBody: '{"status":"Pending"}',
  },
});

function verdicts(entries: [string, FormatVerdict[]][]) {
  return new Map(entries);
}

describe('folding verdicts into rule results', () => {
  it('fails a must rule in failed, a should rule in warnings, and skips what never ran', () => {
    const folded = foldVerdicts(
      verdicts([
        [
          'checkout.status.open',
          [
            { format: 'json', state: 'failed', failures: [failure('a fresh set-up answered Status "Pending"')] },
            { format: 'xml', state: 'passed', failures: [] },
          ],
        ],
        ['checkout.payment-url', [{ format: 'json', state: 'passed', failures: [failure('PaymentUrl is relative')] }]],
        ['checkout.echo', [{ format: 'json', state: 'passed', failures: [] }]],
        ['upload.raw', [{ format: 'json', state: 'skipped', failures: [], skipReason: 'needs writes (--read-only)' }]],
      ]),
      false,
    );
    const byId = new Map(folded.rules.map((r) => [r.id, r]));
    expect(byId.get('checkout.status.open')?.status).toBe('failed');
    expect(byId.get('checkout.payment-url')?.status).toBe('failed');
    expect(byId.get('checkout.echo')?.status).toBe('passed');
    expect(byId.get('upload.raw')).toMatchObject({ status: 'skipped', skipReason: 'needs writes (--read-only)' });
    expect(folded.summary.failed).toBe(1);
    expect(folded.summary.warnings).toBe(1);
    expect(exitCodeOf(folded, false)).toBe(1);
  });

  it('exits 0 on warnings alone, 1 with --strict', () => {
    const folded = foldVerdicts(
      verdicts([['checkout.payment-url', [{ format: 'json', state: 'passed', failures: [failure('relative')] }]]]),
      false,
    );
    expect(exitCodeOf(folded, false)).toBe(0);
    expect(exitCodeOf(folded, true)).toBe(1);
  });

  it('lists unnamed members in the profile, and warns of them only with --strict', () => {
    const extra = verdicts([
      [
        'checkout.response.extra',
        [
          {
            format: 'json',
            state: 'passed',
            failures: [failure('members the description does not name: /billing/address/email')],
          },
        ],
      ],
    ]);
    const lenient = foldVerdicts(extra, false);
    expect(lenient.rules.find((r) => r.id === 'checkout.response.extra')?.status).toBe('observed');
    expect(lenient.profile['checkout.response.extra']).toEqual([
      'members the description does not name: /billing/address/email',
    ]);
    expect(foldVerdicts(extra, true).summary.warnings).toBe(1);
  });

  it('prints the failing request and what came back', () => {
    const folded = foldVerdicts(
      verdicts([
        [
          'checkout.status.open',
          [{ format: 'json', state: 'failed', failures: [failure('a fresh set-up answered Status "Pending"')] }],
        ],
      ]),
      false,
    );
    const text = consoleSummary({
      tool: 't',
      version: '0',
      target: 'http://s.test/v2/',
      startedAt: '',
      durationMs: 1200,
      ...folded,
    });
    expect(text).toContain('FAIL  checkout.status.open');
    expect(text).toContain('[json] a fresh set-up answered Status "Pending"');
    expect(text).toContain('POST http://s.test/v2/checkout/c → 201');
    expect(text).toContain('answered: {"status":"Pending"}');
    expect(text.trim().split('\n').at(-1)).toMatch(
      /^0 passed, 1 failed, 0 warnings, \d+ skipped — http:\/\/s\.test\/v2\/ in 1\.2 s$/,
    );
  });
});
