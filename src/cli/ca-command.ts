import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import { writeFileWhole } from '../output/output-file.js';
import { withSettings } from './settings.js';

export function caCommand(yargs: Argv) {
  return yargs.command(
    'ca',
    "The local certificate authority of interception and serve --tls: made on first use, its key readable by you alone; prints its certificate's path",
    (y) =>
      withSettings(
        y
          .option('ca-dir', {
            type: 'string',
            describe: 'Folder of the CA (default $PRINT_CONFORMANCE_CA_DIR, else ~/.config/print-conformance/ca)',
          })
          .option('pem', { type: 'boolean', default: false, describe: 'Print the certificate itself (PEM)' })
          .option('bundle', {
            type: 'string',
            describe: "Write the system's CAs and this one to FILE, for runtimes that take one CA file",
          })
          .example('$0 ca', "the certificate's path, to trust it where a client runs outside proxy -- COMMAND")
          .example('$0 ca --bundle ca-bundle.pem', 'php -d curl.cainfo=ca-bundle.pem shop.php, say'),
        'ca',
      ),
    async (argv) => {
      if (argv.bundle === '') throw new UsageError('--bundle needs a FILE to write the bundle to');
      const { caDirectory, loadOrCreateCa } = await import('../tls/local-ca.js');
      const ca = await loadOrCreateCa(resolve(caDirectory(argv['ca-dir'])));
      if (ca.created) process.stderr.write(`print-conformance: made a new local CA in ${ca.dir}\n`);
      if (argv.bundle) {
        const { trustBundle } = await import('../tls/trust.js');
        const path = resolve(argv.bundle);
        try {
          writeFileWhole(path, trustBundle([ca.certPem]));
        } catch (error) {
          throw new UsageError(`cannot write --bundle ${argv.bundle}: ${fileProblem(error)}`);
        }
        process.stderr.write(`print-conformance: wrote the system's CAs and the local CA to ${path}\n`);
      }
      if (argv.pem) process.stdout.write(ca.certPem);
      else process.stdout.write(`${ca.certPath}\n`);
    },
  );
}
