import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RuleId, ruleById } from '../../src/contract/rules.js';
import type { Dialect } from '../../src/reference/dialect.js';
import { startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';
import { BREAKING, CONFORMANT_DIALECTS, EVIDENCE_STARVED } from './mutants.js';

// `print-conformance run` against each variant of the reference service: a variant that breaks a
// rule fails exactly that rule (and what it implies); a conformant dialect fails nothing.

async function runAgainst(mutant: { dialect: Partial<Dialect> }) {
  const service = await startReferenceService({ dialect: mutant.dialect });
  const reports = mkdtempSync(join(tmpdir(), 'print-conformance-mutant-'));
  try {
    const result = await runCli([
      'run',
      '--base-url',
      service.baseUrl,
      '--quiet',
      '--report-dir',
      reports,
      '--upload-types',
      'pdf,png,jpeg',
    ]);
    const json = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'));
    const rules = json.rules as { id: RuleId; status: string }[];
    const failed = rules
      .filter((r) => r.status === 'failed')
      .map((r) => r.id)
      .sort();
    const untestedMust = rules.filter((r) => r.status === 'untested' && ruleById(r.id).severity === 'must');
    return { result, failed, untestedMust, statuses: new Map(rules.map((r) => [r.id, r.status])), json };
  } finally {
    await service.close();
    rmSync(reports, { recursive: true, force: true });
  }
}

describe.concurrent('mutant matrix', () => {
  for (const mutant of BREAKING) {
    it(`catches ${mutant.name}`, async () => {
      const { result, failed, untestedMust } = await runAgainst(mutant);
      expect(failed, result.stdout).toEqual([...mutant.fails].sort());
      const mustBroken = mutant.fails.some((id) => ruleById(id).severity === 'must');
      expect(result.code, result.stderr).toBe(mustBroken || untestedMust.length > 0 ? 1 : 0);
    });
  }

  for (const dialect of CONFORMANT_DIALECTS) {
    it(`passes ${dialect.name}`, async () => {
      const { result, failed, json } = await runAgainst(dialect);
      expect(failed, result.stdout).toEqual([]);
      expect(result.code).toBe(0);
      expect(json.summary).toMatchObject({ failed: 0, warnings: 0, untested: 0 });
    });
  }

  // A variant that never lets a rule be tested gets `untested` for it (or `failed`), never `passed`.
  for (const variant of EVIDENCE_STARVED) {
    it(`never passes the ${variant.notPassed.length} rules it gives no evidence for: ${variant.name}`, async () => {
      const { result, statuses } = await runAgainst(variant);
      for (const id of variant.notPassed) expect(['untested', 'failed'], id).toContain(statuses.get(id));
      expect(variant.notPassed.filter((id) => statuses.get(id) === 'untested').length).toBeGreaterThan(0);
      expect(result.code).toBe(1);
    });
  }
});
