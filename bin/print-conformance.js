#!/usr/bin/env node
// The compiled CLI lives in dist/; `npm ci` builds it (prepare). `validate` starts its worker
// threads first, so that they boot while the rest of the CLI loads.
const early = process.argv.includes('validate') ? import('../dist/src/cli/early-start.js') : Promise.resolve();
early
  .then(() => import('../dist/src/cli/main.js'))
  .catch((error) => {
    process.stderr.write(
      `print-conformance: cannot start (${error?.message ?? error}); run "npm ci" or "npm run build" first\n`,
    );
    process.exit(2);
  });
