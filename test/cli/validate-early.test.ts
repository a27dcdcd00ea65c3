import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guessedValidateJobs } from '../../src/cli/validate-early.js';
import { jobsFor } from '../../src/recording/judge-jobs.js';

// The threads `validate` starts before the CLI has parsed its options are only a guess from the
// raw arguments; the command decides for itself. The guess must still start nothing for other
// commands, help, standard input or small recordings, and follow --jobs.

let folder: string;
let small: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-early-'));
  small = join(folder, 'small.ndjson');
  writeFileSync(small, '{}\n');
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the threads validate starts before its options are parsed', () => {
  it('starts none but for validate of a recording large enough, or with --jobs', () => {
    expect(guessedValidateJobs(['run', small, '--jobs', '3'], {})).toBe(1);
    expect(guessedValidateJobs(['validate', small, '--help', '--jobs', '3'], {})).toBe(1);
    expect(guessedValidateJobs(['validate', small], {})).toBe(1);
    expect(guessedValidateJobs(['validate', small, '--report-dir', folder], {})).toBe(1);
    expect(guessedValidateJobs(['validate', small, '--jobs', '3'], {})).toBe(3);
    expect(guessedValidateJobs(['validate', '--jobs=2', small], {})).toBe(2);
    expect(guessedValidateJobs(['validate', small], { PRINT_CONFORMANCE_JOBS: '2' })).toBe(2);
    expect(guessedValidateJobs(['validate', small, '--jobs', 'many'], {})).toBe(1);
    expect(guessedValidateJobs(['validate', '-'], {})).toBe(jobsFor(undefined, undefined));
  });
});
