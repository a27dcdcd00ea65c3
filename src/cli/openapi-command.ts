import type { Argv } from 'yargs';
import { DEFAULT_BASE_URL, openApiDocument } from '../contract/openapi.js';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import { writeFileWhole } from '../output/output-file.js';
import { absoluteUrl } from './base-url.js';
import { withSettings } from './settings.js';

export function openapiCommand(yargs: Argv) {
  return yargs.command(
    'openapi',
    'Print an OpenAPI 3.1 document of the interface, derived from the same schemas and rules',
    (y) =>
      withSettings(
        y
          .option('output', {
            alias: 'o',
            type: 'string',
            describe: 'Write it to this file instead of stdout (- is stdout)',
          })
          .option('base-url', {
            type: 'string',
            describe: `Base URL of the service the document is for: the server's default and the OAuth token URL (default ${DEFAULT_BASE_URL})`,
          })
          .example('$0 openapi --base-url https://test.example.com/v2/ -o openapi.json', 'a document for that service'),
        'openapi',
      ),
    (argv) => {
      const given = absoluteUrl(argv['base-url'], '--base-url');
      // Paths and the token URL are appended to it: a query or fragment would end up in their middle.
      if (given !== undefined && /[?#]/.test(given))
        throw new UsageError(`--base-url ${given}: a base URL has no query or fragment`);
      const baseUrl = given === undefined || given.endsWith('/') ? given : `${given}/`;
      const text = `${JSON.stringify(openApiDocument({ baseUrl }), null, 2)}\n`;
      // "-" is standard output, as tools spell it (-o -): never a file named "-".
      if (!argv.output || argv.output === '-') {
        process.stdout.write(text);
        return;
      }
      try {
        writeFileWhole(argv.output, text);
      } catch (error) {
        throw new UsageError(`cannot write ${argv.output}: ${fileProblem(error)}`);
      }
    },
  );
}
