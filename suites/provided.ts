import type { Finding, SuiteConfig } from '../src/probes/index.js';

// What the CLI and the probing global setup hand the suite files through vitest's provide/inject.

export interface ProbeResults {
  findings: Finding[];
  observations: Record<string, unknown>;
  exchanges: number;
  /** Set when the probes could not run at all. */
  error?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    printConformanceConfig: SuiteConfig & { progress: boolean };
    printConformanceResults: ProbeResults;
  }
}

/** The verdict of one rule in one format, kept in the test's meta for the CLI's reports. */
export interface Verdict {
  rule: string;
  format: string;
  severity: string;
  failures: Finding[];
  observation?: unknown;
}

declare module '@vitest/runner' {
  interface TaskMeta {
    verdict?: Verdict;
  }
}
