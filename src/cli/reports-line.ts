import { join, relative, resolve } from 'node:path';
import type { ReportPlaces as WrittenPlaces } from '../report/write-reports.js';
import { commandName } from './how-started.js';

// The last words of a run: where its reports went and how to read them, so that a first run
// ends by saying what to do next.

/** Where the reports went, as written (write-reports.ts), and the Markdown summary beside them. */
export type ReportPlaces = Omit<WrittenPlaces, 'sarifOptions'> & { summaryMd?: string };

/** A path as typed at this folder: relative when under it, else absolute. */
function shown(path: string): string {
  const here = relative(process.cwd(), resolve(path));
  return here && !here.startsWith('..') && !here.startsWith('/') ? here : resolve(path);
}

/** "reports: reports/results.json, … — HTML: print-conformance report", ending in a newline. */
export function reportsLine(places: ReportPlaces): string {
  const files = [
    shown(places.jsonReport ?? join(places.reportDir, 'results.json')),
    shown(places.junit ?? join(places.reportDir, 'junit.xml')),
    `${shown(places.allureDir ?? join(places.reportDir, 'allure-results'))}/`,
    ...(places.sarif ? [shown(places.sarif)] : []),
    ...(places.summaryMd ? [shown(places.summaryMd)] : []),
  ];
  // The report command finds the Allure results where this run put them when told the same places.
  const where = places.allureDir
    ? ` --allure-dir ${shown(places.allureDir)}`
    : places.reportDir === 'reports'
      ? ''
      : ` --report-dir ${shown(places.reportDir)}`;
  return `reports: ${files.join(', ')}\nHTML report: ${commandName()} report${where}\n`;
}
