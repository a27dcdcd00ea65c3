import { startValidateThreadsEarly } from './validate-early.js';

// Loaded before the rest of the CLI (first by bin/print-conformance.js, first among main.ts's
// imports in the single executable), so that `validate` starts its worker threads while the CLI's
// own code loads.

startValidateThreadsEarly(process.argv.slice(2));
