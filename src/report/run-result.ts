import { RULES, type Severity } from '../contract/rules.js';
import type { Finding } from '../probes/index.js';

// The outcome of a run, per rule, as every report writer sees it (CLI.md, "Reports").

export type RuleStatus = 'passed' | 'failed' | 'skipped' | 'observed';

export interface FormatVerdict {
  format: string;
  state: 'passed' | 'failed' | 'skipped';
  failures: Finding[];
  skipReason?: string;
  observation?: unknown;
}

export interface RuleResult {
  id: string;
  severity: Severity;
  status: RuleStatus;
  formats: FormatVerdict[];
  failures: { message: string; format: string; request: Finding['exchange'] }[];
  skipReason?: string;
}

export interface RunResult {
  tool: string;
  version: string;
  target: string;
  startedAt: string;
  durationMs: number;
  summary: { passed: number; failed: number; warnings: number; skipped: number };
  rules: RuleResult[];
  profile: Record<string, unknown>;
}

/** Folds per-format verdicts into one result per rule, in catalog order. */
export function foldVerdicts(verdicts: Map<string, FormatVerdict[]>, strict: boolean) {
  const rules: RuleResult[] = [];
  const profile: Record<string, unknown> = {};
  const summary = { passed: 0, failed: 0, warnings: 0, skipped: 0 };
  for (const rule of RULES) {
    const formats = verdicts.get(rule.id) ?? [];
    const failures = formats.flatMap((f) =>
      f.failures.map((x) => ({ message: x.message, format: f.format, request: x.exchange })),
    );
    const ran = formats.filter((f) => f.state !== 'skipped');
    let status: RuleStatus;
    if (ran.length === 0) status = 'skipped';
    else if (rule.severity === 'observe')
      status = rule.id === 'checkout.response.extra' && strict && failures.length > 0 ? 'failed' : 'observed';
    else status = failures.length > 0 ? 'failed' : 'passed';
    const result: RuleResult = { id: rule.id, severity: rule.severity, status, formats, failures };
    const reason = formats.find((f) => f.skipReason)?.skipReason;
    if (status === 'skipped' && reason) result.skipReason = reason;
    rules.push(result);

    if (status === 'skipped') summary.skipped += 1;
    else if (status === 'passed') summary.passed += 1;
    else if (status === 'failed') {
      if (rule.severity === 'must') summary.failed += 1;
      else summary.warnings += 1;
    }
    const observed = formats.find((f) => f.observation !== undefined)?.observation;
    if (rule.severity === 'observe' && observed !== undefined) profile[rule.id] = observed;
    else if (rule.severity === 'observe' && failures.length > 0)
      profile[rule.id] = [...new Set(failures.map((f) => f.message))];
  }
  return { rules, profile, summary };
}

/** 0 every must rule held (and with --strict every should rule), 1 otherwise. */
export function exitCodeOf(result: Pick<RunResult, 'summary'>, strict: boolean): 0 | 1 {
  if (result.summary.failed > 0) return 1;
  if (strict && result.summary.warnings > 0) return 1;
  return 0;
}
