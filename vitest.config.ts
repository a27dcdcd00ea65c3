import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance suite in suites/ is run by the CLI, not by this config.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-ca.ts'],
    setupFiles: ['test/repository-untouched.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
