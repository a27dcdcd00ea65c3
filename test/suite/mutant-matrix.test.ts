import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
    const failed = (json.rules as { id: string; status: string }[])
      .filter((r) => r.status === 'failed')
      .map((r) => r.id)
      .sort();
    return { result, failed, json };
  } finally {
    await service.close();
    rmSync(reports, { recursive: true, force: true });
  }
}

describe.concurrent('mutant matrix', () => {
  for (const mutant of BREAKING) {
    it(`catches ${mutant.name}`, async () => {
      const { result, failed } = await runAgainst(mutant);
      expect(failed, result.stdout).toEqual([...mutant.fails].sort());
      const mustBroken = mutant.fails.some(
        (id) =>
          ![
            'checkout.get.consistent',
            'checkout.payment-url',
            'checkout.status.known',
            'checkout.country-code',
          ].includes(id),
      );
      expect(result.code, result.stderr).toBe(mustBroken ? 1 : 0);
    });
  }

  for (const dialect of CONFORMANT_DIALECTS) {
    it(`passes ${dialect.name}`, async () => {
      const { result, failed, json } = await runAgainst(dialect);
      expect(failed, result.stdout).toEqual([]);
      expect(result.code).toBe(0);
      expect(json.summary.failed).toBe(0);
    });
  }

  // These need rules without evidence to come out "untested"; until then they would pass.
  for (const variant of EVIDENCE_STARVED) {
    it.todo(`never passes ${variant.notPassed.length} rules it gives no evidence for: ${variant.name}`);
  }
});
