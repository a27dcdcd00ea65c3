import { join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { UsageError } from '../findings/usage-error.js';
import { withSettings } from './settings.js';
import { writableFolder } from './writable.js';

export function reportCommand(yargs: Argv) {
  return yargs.command(
    'report [results]',
    'Turn the Allure results of run or validate into one HTML page that opens offline',
    (y) =>
      withSettings(
        y
          .positional('results', {
            type: 'string',
            describe: 'Folder of Allure results (default: <allure-dir>, else <report-dir>/allure-results)',
          })
          .option('report-dir', {
            type: 'string',
            default: 'reports',
            describe: 'The report folder run and validate wrote to',
          })
          .option('allure-dir', { type: 'string', describe: 'The folder of Allure results run and validate wrote' })
          .option('output', {
            alias: 'o',
            type: 'string',
            describe: 'Folder to write index.html to (default <report-dir>/allure-report)',
          })
          .option('name', { type: 'string', default: 'print-conformance', describe: 'Title of the report' })
          .example('$0 && $0 report', 'run the suite, then write reports/allure-report/index.html'),
        'report',
      ),
    async (argv) => {
      // The same places run and validate write to, from the same options, file and environment.
      const reportDir = resolve(argv['report-dir']);
      const resultsDir = resolve(argv.results ?? argv['allure-dir'] ?? join(reportDir, 'allure-results'));
      const outputDir = resolve(argv.output ?? join(reportDir, 'allure-report'));
      // The generator is loaded only for this command.
      const { hasAllureResults, unreadableAllureResults, writeHtmlReport } = await import('../report/html-report.js');
      if (!hasAllureResults(resultsDir))
        throw new UsageError(`no Allure results in ${resultsDir}; run the suite or validate first`);
      // A page that leaves out what it cannot read would tell another story than the run did.
      const unreadable = unreadableAllureResults(resultsDir);
      if (unreadable.length > 0)
        throw new UsageError(
          `${unreadable.length} Allure result file${unreadable.length > 1 ? 's' : ''} in ${resultsDir} cannot be read (${unreadable[0]}${unreadable.length > 1 ? ', …' : ''}): cut off or changed, their rules would be missing from the report; run the suite or validate again`,
        );
      writableFolder(outputDir, '--output');
      process.stderr.write(`writing the report of ${resultsDir}…\n`);
      const index = await writeHtmlReport({ resultsDir, outputDir, name: argv.name });
      process.stdout.write(`report written to ${index}\n`);
    },
  );
}
