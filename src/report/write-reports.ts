import { join, resolve } from 'node:path';
import type { RunResult } from '../findings/types.js';
import { writeAllureResults } from './allure-report.js';
import { writeJsonReport } from './json-report.js';
import { writeJunitReport } from './junit-report.js';
import { type SarifOptions, writeSarifReport } from './sarif-report.js';

export interface ReportPlaces {
  reportDir: string;
  jsonReport?: string;
  junit?: string;
  allureDir?: string;
  /** SARIF is written only when asked for. */
  sarif?: string;
  sarifOptions?: SarifOptions;
}

/** results.json, junit.xml, Allure results (and SARIF) of one run, from one RunResult: one story in all. */
export function writeReports(result: RunResult, places: ReportPlaces): void {
  const reportDir = resolve(places.reportDir);
  writeJsonReport(result, resolve(places.jsonReport ?? join(reportDir, 'results.json')));
  writeJunitReport(result, resolve(places.junit ?? join(reportDir, 'junit.xml')));
  writeAllureResults(result, resolve(places.allureDir ?? join(reportDir, 'allure-results')));
  if (places.sarif) writeSarifReport(result, resolve(places.sarif), places.sarifOptions);
}
