#!/usr/bin/env node
// SIGUSR1 would open Node.js's inspector on 127.0.0.1:9229, where anyone on the machine can run
// code in the process: a listener takes the signal over (see src/operations/no-debugger-signal.ts).
if (process.platform !== 'win32') process.on('SIGUSR1', () => {});
// The compiled CLI lives in dist/; `npm ci` builds it (prepare). A Node.js whose HTTP parser has a
// known flaw is refused first. `validate` starts its worker threads next, so that they boot while
// the rest of the CLI loads.
import('../dist/src/cli/runtime-check.js')
  .then(({ runtimeRefusal }) => {
    const refusal = runtimeRefusal(process.versions.node);
    if (refusal) {
      process.stderr.write(`print-conformance: ${refusal}\n`);
      process.exit(2);
    }
    return process.argv.includes('validate') ? import('../dist/src/cli/early-start.js') : undefined;
  })
  .then(() => import('../dist/src/cli/main.js'))
  .catch((error) => {
    process.stderr.write(
      `print-conformance: cannot start (${error?.message ?? error}); run "npm ci" or "npm run build" first\n`,
    );
    process.exit(2);
  });
