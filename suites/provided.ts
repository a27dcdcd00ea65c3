import type { GeneratedSummary, RuleResult } from '../src/findings/types.js';
import type { SuiteConfig } from '../src/probes/index.js';
import type { Exchange } from '../src/validate/exchange.js';
import type { TallyData } from '../src/validate/tally.js';

// What the CLI and the probing setup hand the suite files (inject), and what the tests leave for
// the CLI to read back (meta).

export interface ProbeResults {
  tally: TallyData;
  exchanges: number;
  /** The exchanges themselves, as made (unredacted), for a recording of the run. */
  made: Exchange[];
  /** What the generated tests did (--generate). */
  generated?: GeneratedSummary;
  /** Set when the probes could not run at all. */
  error?: string;
}

declare module './engine.js' {
  interface ProvidedContext {
    /** `verbose`: every request's line besides each phase's. */
    printConformanceConfig: SuiteConfig & { progress: boolean; verbose?: boolean };
    printConformanceResults: ProbeResults;
  }

  interface TestMeta {
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
