#!/usr/bin/env node
// The compiled CLI lives in dist/; `npm ci` builds it (prepare).
import('../dist/src/cli/main.js').catch((error) => {
  process.stderr.write(
    `print-conformance: cannot start (${error?.message ?? error}); run "npm ci" or "npm run build" first\n`,
  );
  process.exit(2);
});
