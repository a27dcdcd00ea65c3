import type { Argv } from 'yargs';
import { withReportOptions } from './report-options.js';
import { withSettings } from './settings.js';
import { checkReportPlaces } from './writable.js';

export function mergeCommand(yargs: Argv) {
  return yargs.command(
    'merge <files..>',
    'Combine the results.json of shards of one validate run into one report',
    (y) =>
      withSettings(
        withReportOptions(y)
          .positional('files', {
            // Required: an empty default would only contradict that in --help.
            default: undefined,
            type: 'string',
            array: true,
            describe: 'results.json files of the shards',
          })
          .option('quiet', {
            type: 'boolean',
            default: false,
            describe: 'No lines on stderr but problems; no table: the failures and the summary line',
          })
          .example('$0 merge shard-*/results.json', 'one report for a validate run split with --shard K/N'),
        'merge',
      ),
    async (argv) => {
      checkReportPlaces(argv);
      // Loaded when merging: every other command starts without it.
      const { mergeAndReport } = await import('./merge-results.js');
      mergeAndReport((argv.files ?? []).map(String), argv);
    },
  );
}
