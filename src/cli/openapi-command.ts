import { writeFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import { openApiDocument } from '../contract/openapi.js';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import { withSettings } from './settings.js';

export function openapiCommand(yargs: Argv) {
  return yargs.command(
    'openapi',
    'Print an OpenAPI 3.1 document of the interface, derived from the same schemas',
    (y) =>
      withSettings(
        y.option('output', { alias: 'o', type: 'string', describe: 'Write it to this file instead of stdout' }),
        'openapi',
      ),
    (argv) => {
      const text = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
      if (!argv.output) {
        process.stdout.write(text);
        return;
      }
      try {
        writeFileSync(argv.output, text);
      } catch (error) {
        throw new UsageError(`cannot write ${argv.output}: ${fileProblem(error)}`);
      }
    },
  );
}
