import type { GeneratedSummary, RuleResult } from '../src/findings/types.js';
import type { SuiteConfig } from '../src/probes/index.js';
import type { TallyData } from '../src/validate/tally.js';

// What the CLI and the probing global setup hand the suite files through vitest's provide/inject.

export interface ProbeResults {
  tally: TallyData;
  exchanges: number;
  /** What the generated tests did (--generate). */
  generated?: GeneratedSummary;
  /** Set when the probes could not run at all. */
  error?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * `verbose`: every request's line besides each phase's. `exchangesFile`: where the probes'
     * exchanges go, redacted, one JSON line each, for run --record and --har.
     */
    printConformanceConfig: SuiteConfig & { progress: boolean; verbose?: boolean; exchangesFile?: string };
    printConformanceResults: ProbeResults;
  }
}

declare module '@vitest/runner' {
  interface TaskMeta {
    /** The rule's verdict, for the CLI's reports. */
    verdict?: RuleResult;
    /** Why the probes could not run at all. */
    probeError?: string;
    /** How each kind of request was answered, for the run's own judgement of its credentials. */
    answers?: TallyData['answers'];
    /** Exchanges the probes made. */
    exchanges?: number;
    /** Which parts of the interface the probes exercised. */
    coverage?: TallyData['coverage'];
    /** What the generated tests did (--generate). */
    generated?: GeneratedSummary;
  }
}
