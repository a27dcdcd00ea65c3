import { resolve } from 'node:path';
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
            default: 'reports/allure-results',
            describe: 'Folder of Allure results',
          })
          .option('output', {
            alias: 'o',
            type: 'string',
            default: 'reports/allure-report',
            describe: 'Folder to write index.html to',
          })
          .option('name', { type: 'string', default: 'print-conformance', describe: 'Title of the report' })
          .example('$0 && $0 report', 'run the suite, then write reports/allure-report/index.html'),
        'report',
      ),
    async (argv) => {
      const resultsDir = resolve(argv.results);
      const outputDir = resolve(argv.output);
      // The generator is loaded only for this command.
      const { hasAllureResults, writeHtmlReport } = await import('../report/html-report.js');
      if (!hasAllureResults(resultsDir))
        throw new UsageError(`no Allure results in ${resultsDir}; run the suite or validate first`);
      writableFolder(outputDir, '--output');
      process.stderr.write(`writing the report of ${resultsDir}…\n`);
      const index = await writeHtmlReport({ resultsDir, outputDir, name: argv.name });
      process.stdout.write(`report written to ${index}\n`);
    },
  );
}
