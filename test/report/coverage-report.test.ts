import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/findings/types.js';
import { allureEnvironment } from '../../src/report/allure-environment.js';
import { consoleSummary } from '../../src/report/console-summary.js';
import { markdownSummary } from '../../src/report/markdown-summary.js';

// Coverage in every report: the console's short table, the Markdown summary's folded one, and the
// HTML report's overview (Allure's environment), from the one `coverage` of results.json.

const result = {
  tool: 'print-conformance',
  version: '0.1.0',
  target: 'http://s.test/v2/',
  startedAt: '2026-11-24T10:00:00.000Z',
  durationMs: 1200,
  strict: false,
  summary: { passed: 1, failed: 0, warnings: 0, untested: 0, skipped: 0, observed: 0 },
  rules: [],
  profile: {},
  exchanges: 3,
  run: { face: 'traffic', selected: [], formats: ['json', 'xml'], strict: false },
  answers: {},
  coverage: {
    'POST checkout': {
      exchanges: { json: 2, xml: 1 },
      request: {
        json: { '/returnUrl': { present: 2, absent: 0, nil: 0 }, '/billing': { present: 0, absent: 2, nil: 0 } },
      },
      response: { xml: { '/Tax': { present: 0, absent: 0, nil: 1 } } },
      sent: { 'application/json': 2, 'application/xml': 1 },
      answered: { 'application/json': 2, 'application/xml': 1 },
      statuses: { '201': 3 },
    },
  },
} as unknown as RunResult;

describe('coverage in the reports', () => {
  it('says per operation which documented members were seen, and which never', () => {
    const console = consoleSummary(result);
    expect(console).toContain('  POST checkout/{code}: json ×2, xml ×1; answered 201 ×3');
    expect(console).toContain('    request members json 1/2 (never: /billing)');
    expect(console).toContain('    answer members xml 1/1');
    expect(markdownSummary(result)).toContain(
      '| POST checkout/{code} | json ×2, xml ×1 | 201 ×3 | json 1/2 (never: /billing) | xml 1/1 |',
    );
    expect(allureEnvironment(result)['coverage POST checkout/{code}']).toBe(
      'json ×2, xml ×1; answered 201 ×3; request members json 1/2 (never: /billing); answer members xml 1/1',
    );
  });
});
