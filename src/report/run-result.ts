import { TOOL_NAME, TOOL_VERSION } from '../contract/package-root.js';
import type {
  ClientsSection,
  ClientTestVerdict,
  GeneratedSummary,
  RuleResult,
  RunResult,
  ShardFacts,
  WrappedCommand,
} from '../findings/types.js';
import type { TallyData } from '../validate/tally.js';
import { contextToJson, profileOf, summaryOf, type VerdictContext } from '../validate/verdicts.js';

// The outcome of a run as every report writer sees it (CLI.md, "Reports"): the summary is counted
// from the rules' verdicts, never kept apart from them.

export interface RunFacts {
  target: string;
  started: number;
  /** performance.now() at the start: the duration is measured on it, so a stepped clock cannot skew it. */
  startedMonotonic?: number;
  context: VerdictContext;
  rules: RuleResult[];
  tally: Pick<TallyData, 'exchanges' | 'answers'> & Partial<Pick<TallyData, 'traffic' | 'coverage'>>;
  /** `proxy -- COMMAND`: the command, how it ended, and the exit code the session ends with. */
  command?: WrappedCommand;
  exitCode?: number;
  /** Why a recording asked for is not whole, when it is not. */
  recordingProblem?: string;
  /** `run --generate`: what the generated tests did. */
  generated?: GeneratedSummary;
  /** `validate --shard K/N`. */
  shard?: ShardFacts;
  /** Traffic marked by the client's own tests: the verdict per test. */
  clientTests?: ClientTestVerdict[];
  /** --clients-by: the verdict per client team. */
  clients?: ClientsSection;
}

export function runResult(facts: RunFacts): RunResult {
  return {
    tool: TOOL_NAME,
    version: TOOL_VERSION,
    target: facts.target,
    startedAt: new Date(facts.started).toISOString(),
    durationMs: Math.max(
      0,
      Math.round(
        facts.startedMonotonic === undefined ? Date.now() - facts.started : performance.now() - facts.startedMonotonic,
      ),
    ),
    strict: facts.context.strict,
    summary: summaryOf(facts.rules),
    rules: facts.rules,
    profile: profileOf(facts.rules),
    exchanges: facts.tally.exchanges,
    run: contextToJson(facts.context),
    answers: facts.tally.answers,
    ...(facts.tally.traffic && facts.context.face === 'traffic' ? { traffic: facts.tally.traffic } : {}),
    ...(facts.tally.coverage ? { coverage: facts.tally.coverage } : {}),
    ...(facts.generated ? { generated: facts.generated } : {}),
    ...(facts.command ? { command: facts.command } : {}),
    ...(facts.exitCode !== undefined ? { exitCode: facts.exitCode } : {}),
    ...(facts.recordingProblem ? { recording: { complete: false as const, problem: facts.recordingProblem } } : {}),
    ...(facts.shard ? { shard: facts.shard } : {}),
    ...(facts.clientTests && facts.clientTests.length > 0 ? { clientTests: facts.clientTests } : {}),
    ...(facts.clients ? { clients: facts.clients } : {}),
  };
}
