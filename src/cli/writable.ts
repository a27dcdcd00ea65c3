import { rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import { provenWritableFolder } from '../output/output-file.js';
import { clearAllureResults } from '../report/clear-allure-results.js';

// Output places are checked before any work starts: a run of minutes must not end in "cannot
// write", and a tool's stack trace is no answer to a typo in a path.

/** Each output file is its own: two options naming one file would write over each other. */
export function distinctOutputs(outputs: [string, string | undefined][]): void {
  const seen = new Map<string, string>();
  for (const [option, file] of outputs) {
    if (!file) continue;
    const path = resolve(file);
    const before = seen.get(path);
    if (before) throw new UsageError(`${before} and ${option} name the same file, ${path}: give each its own`);
    seen.set(path, option);
  }
}

/** Creates the folder if needed; a usage error when it cannot be made or written. */
export function writableFolder(folder: string, option: string): void {
  try {
    provenWritableFolder(folder);
  } catch (error) {
    throw new UsageError(`${option} ${folder}: cannot write there (${fileProblem(error)})`);
  }
}

/** A file that can be created or replaced: its folder is made if needed, and it is no folder. */
export function writableFile(file: string, option: string): void {
  try {
    writableFolder(dirname(file), option);
  } catch {
    throw new UsageError(`${option} ${file}: its folder ${dirname(file)} cannot be made or written`);
  }
  try {
    if (statSync(file).isDirectory()) throw new UsageError(`${option} ${file} is a folder`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new UsageError(`${option} ${file}: ${fileProblem(error)}`);
  }
}

export interface ReportPlaceOptions {
  'report-dir': string;
  'json-report'?: string;
  junit?: string;
  'allure-dir'?: string;
  'summary-md'?: string;
  sarif?: string;
}

/** The report folder and any report file given on its own, for run and validate. */
export function checkReportPlaces(argv: ReportPlaceOptions): void {
  // An empty place would be the working folder itself (--report-dir "" from an unset variable).
  for (const option of ['report-dir', 'json-report', 'junit', 'allure-dir', 'summary-md', 'sarif'] as const)
    if (argv[option]?.trim() === '') throw new UsageError(`--${option} is empty: give the place to write to`);
  const reportDir = resolve(argv['report-dir']);
  distinctOutputs([
    ['--json-report', argv['json-report'] ?? join(reportDir, 'results.json')],
    ['--junit', argv.junit ?? join(reportDir, 'junit.xml')],
    ['--summary-md', argv['summary-md']],
    ['--sarif', argv.sarif],
  ]);
  writableFolder(reportDir, '--report-dir');
  if (argv['json-report']) writableFile(resolve(argv['json-report']), '--json-report');
  if (argv.junit) writableFile(resolve(argv.junit), '--junit');
  if (argv['allure-dir']) writableFolder(resolve(argv['allure-dir']), '--allure-dir');
  if (argv['summary-md']) writableFile(resolve(argv['summary-md']), '--summary-md');
  if (argv.sarif) writableFile(resolve(argv.sarif), '--sarif');
}

/**
 * Removes the reports an earlier run left in this run's places (results.json, junit.xml, the
 * Allure files and the Markdown summary; nothing else): a run that is interrupted or cannot be made then leaves no report,
 * rather than the last run's posing as its own.
 */
export function clearPreviousReports(argv: ReportPlaceOptions): void {
  const reportDir = resolve(argv['report-dir']);
  rmSync(resolve(argv['json-report'] ?? join(reportDir, 'results.json')), { force: true });
  rmSync(resolve(argv.junit ?? join(reportDir, 'junit.xml')), { force: true });
  clearAllureResults(resolve(argv['allure-dir'] ?? join(reportDir, 'allure-results')));
  if (argv['summary-md']) rmSync(resolve(argv['summary-md']), { force: true });
  if (argv.sarif) rmSync(resolve(argv.sarif), { force: true });
}
