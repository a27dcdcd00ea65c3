import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guessedValidateJobs } from '../../src/cli/validate-early.js';
import { inflatedSize } from '../../src/recording/inflated-size.js';
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
    // More than the command takes starts nothing: the command refuses it.
    expect(guessedValidateJobs(['validate', small, '--jobs', '1000'], {})).toBe(1);
    expect(guessedValidateJobs(['validate', '-'], {})).toBe(jobsFor(undefined, undefined));
  });

  it('sizes a gzip-compressed recording by the text it holds, which is what is judged', () => {
    const text = '{"request":{"method":"GET","url":"https://s.test/v2/checkout/A1"}}\n'.repeat(2000);
    const compressed = join(folder, 'small.ndjson.gz');
    writeFileSync(compressed, gzipSync(text));
    expect(inflatedSize(compressed, statSync(compressed).size)).toBe(Buffer.byteLength(text));
    expect(inflatedSize(small, statSync(small).size)).toBe(statSync(small).size);
    // A gzip trailer that says 200 MiB: judged on threads as a 200 MiB recording would be.
    const large = join(folder, 'large.ndjson.gz');
    const trailer = Buffer.alloc(4);
    trailer.writeUInt32LE(200 * 1024 * 1024);
    writeFileSync(large, Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(30), trailer]));
    expect(guessedValidateJobs(['validate', large], {})).toBe(jobsFor(undefined, 200 * 1024 * 1024));
    expect(guessedValidateJobs(['validate', compressed], {})).toBe(1);
  });
});
