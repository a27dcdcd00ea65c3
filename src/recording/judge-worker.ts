import module from 'node:module';

// The entry of a `validate` worker thread. Each worker compiles the judging code anew; from Node.js
// 22 on, V8's compile cache keeps what was compiled on disk (in the temporary folder, keyed by each
// file's contents), so that the next worker, and the next run, start from it. Node.js 20 has no
// such cache: there the worker compiles as before. The judging code is loaded only once the cache
// is on, hence the import below rather than at the top.

const cache = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
try {
  cache?.();
} catch {
  // A cache that cannot be written (a read-only temporary folder) only costs the time it saves.
}
await import('./judge-worker-loop.js');
