import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance suite in suites/ is run by the CLI, not by this config.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-ca.ts'],
    // Two files at a time: most wait on the processes and servers they start, and one at a time on
    // two cores (vitest's default there) took 611 s for what two at a time do in 350 s.
    maxWorkers: 2,
    setupFiles: ['test/repository-untouched.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
