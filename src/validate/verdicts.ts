import type { ExchangeKind } from '../contract/exchange-facts.js';
import { type Face, formatsOf, RULES, type Rule, type RuleId } from '../contract/rules.js';
import type {
  Finding,
  FormatKey,
  FormatResult,
  RuleResult,
  RuleStatus,
  RunContext,
  RunSummary,
} from '../findings/types.js';
import { NOT_SENT, type TallyData } from './tally.js';

// One status model for every face and writer: a rule's verdict from what a run saw. `passed` needs
// evidence (an exchange that could have broken the rule); a selected rule without any is
// `untested`, with the reason, and an untested `must` rule fails the run like a broken one.

export interface VerdictContext {
  face: Face;
  selected: ReadonlySet<RuleId>;
  /** The formats the run speaks (--format). */
  formats: readonly ('json' | 'xml')[];
  strict: boolean;
  readOnly?: boolean;
  uploadSize?: boolean;
  /**
   * Traffic judged on what it used (CLI.md, "What traffic is judged on"): rules of formats and
   * operations the traffic never used are skipped, not untested. Off when --format or --only is given.
   */
  auto?: boolean;
}

/** How a kind of request is named where a reason says the traffic never made it. */
const OPERATION_NAMES: Record<ExchangeKind, string> = {
  'POST checkout': 'POST checkout/{code}',
  'GET checkout': 'GET checkout/{code}',
  'POST files': 'POST files/{code}',
  other: 'other requests',
};

/** The formats the rule's kinds of request used in this traffic. */
function formatsUsed(rule: Rule, tally: TallyData): ('json' | 'xml')[] {
  const used = new Set<'json' | 'xml'>();
  for (const kind of rule.evidence.kinds)
    for (const [format, count] of Object.entries(tally.traffic.used[kind] ?? {}))
      if (count > 0) used.add(format as 'json' | 'xml');
  return [...used];
}

/** Why a rule is left out of a verdict on traffic that never did what could test it. */
function notExercised(rule: Rule, tally: TallyData): string | undefined {
  // A rule the traffic broke was exercised, whatever else it did or did not do: a client that
  // builds every URL itself calls no operation of the interface, and is caught by name.
  if (tally.broken[rule.id] !== undefined) return undefined;
  const kinds = rule.evidence.kinds.filter((kind) => kind !== 'other');
  if (kinds.length === 0) return undefined;
  if (!kinds.some((kind) => tally.traffic.used[kind] !== undefined))
    return `not exercised: this traffic never called ${kinds.map((kind) => OPERATION_NAMES[kind]).join(' or ')}`;
  // A rule whose precondition no request met (no ReturnUrl sent, no Accept: application/json)
  // was not exercised by this client: it says nothing of the client or the service.
  const exercised = rule.evidence.exercised;
  if (exercised && !tally.traffic.exercised?.[rule.id] && tally.evidence[rule.id] === undefined)
    return `not exercised: this traffic holds no ${exercised.what}`;
  // A request of another shape is evidence on its own; a well-shaped one needs the order's answer.
  if (rule.evidence.needsOrderAnswers && tally.traffic.orders === 0 && tally.evidence[rule.id] === undefined)
    return 'not exercised: this traffic holds no order answer (POST orders, GET orders/{id}), so the URLs its client was given are not known';
  if ((rule.formats === 'json' || rule.formats === 'xml') && !formatsUsed(rule, tally).includes(rule.formats)) {
    const format = rule.formats;
    const anywhere = Object.values(tally.traffic.used).some((formats) => (formats?.[format] ?? 0) > 0);
    const where = anywhere ? ` in ${kinds.map((kind) => OPERATION_NAMES[kind]).join(' or ')}` : '';
    return `not exercised: this traffic holds no ${format.toUpperCase()}${where}`;
  }
  return undefined;
}

const FACE_ONLY: Record<Face, string> = {
  suite: 'judged in traffic only (proxy, validate)',
  traffic: 'judged by the suite only (run)',
};

function skipReason(rule: Rule, context: VerdictContext, tally: TallyData): string | undefined {
  if (!context.selected.has(rule.id)) return 'not selected (--only/--skip)';
  if (!rule.faces.includes(context.face)) return FACE_ONLY[context.face];
  if (context.readOnly && rule.writes) return 'needs writes (--read-only)';
  if (rule.needs === 'upload-size' && !context.uploadSize) return 'needs --upload-size';
  if (context.auto) return notExercised(rule, tally);
  if ((rule.formats === 'json' || rule.formats === 'xml') && !context.formats.includes(rule.formats))
    return `${rule.formats.toUpperCase()} not selected (--format)`;
  return undefined;
}

const answered = (answer: string) => (answer === NOT_SENT ? answer : `answered ${answer}`);

function describeAnswers(kind: ExchangeKind, answers: Record<string, number> | undefined): string {
  const entries = Object.entries(answers ?? {}).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return `no ${kind} was made`;
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  if (entries.length === 1) return `every ${kind} (${total}) was ${answered(entries[0]?.[0] ?? '')}`;
  return `${kind} was ${entries.map(([answer, count]) => `${answered(answer)} ×${count}`).join(', ')}`;
}

/** Why no exchange of the run could test a rule, from what the run did see. */
export function untestedReason(rule: Rule, format: FormatKey, tally: TallyData): string {
  const where = format === 'any' ? '' : ` in ${format.toUpperCase()}`;
  const seen = rule.evidence.kinds.map((kind) => describeAnswers(kind, tally.answers[kind]));
  return `no exchange could test it${where}: it needs ${rule.evidence.what}; ${seen.join('; ')}`;
}

function formatResults(rule: Rule, tally: TallyData, context: VerdictContext): FormatResult[] {
  const speaks = context.auto ? formatsUsed(rule, tally) : context.formats;
  const wanted = formatsOf(rule).filter((f) => f === 'any' || speaks.includes(f));
  // Something found in a format the rule does not list (a 5xx answered in XML, say) is shown too.
  const seen = [
    ...Object.keys(tally.evidence[rule.id] ?? {}),
    ...Object.keys(tally.broken[rule.id] ?? {}),
  ] as FormatKey[];
  const shown = (f: FormatKey) => f === 'any' || context.auto || context.formats.includes(f);
  const formats = [...new Set([...wanted, ...seen.filter(shown)])];
  return formats.map((format) => {
    const evidence = tally.evidence[rule.id]?.[format] ?? 0;
    const broken = tally.broken[rule.id]?.[format] ?? 0;
    let status: RuleStatus;
    if (broken > 0) status = rule.severity === 'observe' ? 'observed' : 'failed';
    else if (evidence > 0) status = rule.severity === 'observe' ? 'observed' : 'passed';
    else status = 'untested';
    const result: FormatResult = { format, status, evidence, broken };
    if (status === 'untested') result.reason = untestedReason(rule, format, tally);
    return result;
  });
}

function statusOf(
  rule: Rule,
  formats: FormatResult[],
  tally: TallyData,
  context: VerdictContext,
): Pick<RuleResult, 'status' | 'reason'> {
  const held = rule.severity === 'observe' ? 'observed' : 'passed';
  if (formats.some((f) => f.status === 'failed')) return { status: 'failed' };
  const untested = formats.find((f) => f.status === 'untested');
  // The suite chose its formats and must show the rule in each; traffic shows what it carried.
  if (untested && context.face === 'suite') return { status: 'untested', reason: untested.reason ?? '' };
  // A verdict of held rests on evidence, whatever formats the traffic did or did not name.
  if (!formats.some((f) => f.evidence > 0)) return { status: 'untested', reason: untestedReason(rule, 'any', tally) };
  return { status: held };
}

/** One rule's verdict. */
export function verdictOf(rule: Rule, tally: TallyData, context: VerdictContext): RuleResult {
  const failures = tally.findings.filter((f) => f.rule === rule.id);
  const base = { id: rule.id, severity: rule.severity, failures: [] as Finding[], moreFailures: 0 };
  const skipped = skipReason(rule, context, tally);
  if (skipped) return { ...base, status: 'skipped', evidence: 0, reason: skipped, failsRun: false, formats: [] };
  const formats = formatResults(rule, tally, context);
  const evidence = formats.reduce((sum, f) => sum + f.evidence, 0);
  const broken = formats.reduce((sum, f) => sum + f.broken, 0);
  const outcome = statusOf(rule, formats, tally, context);
  const status = outcome.status;
  const failsRun =
    rule.severity !== 'observe' &&
    (status === 'failed' || status === 'untested') &&
    (rule.severity === 'must' || context.strict);
  const result: RuleResult = {
    ...base,
    status,
    evidence,
    failsRun,
    formats,
    failures,
    moreFailures: Math.max(0, broken - failures.length),
  };
  if (outcome.reason !== undefined) result.reason = outcome.reason;
  const time = tally.time?.[rule.id];
  if (time) result.durationMs = Math.round(time);
  if (rule.severity === 'observe') {
    const observed =
      tally.observations[rule.id] ?? (failures.length ? [...new Set(failures.map((f) => f.message))] : undefined);
    if (observed !== undefined) result.observed = observed;
  }
  return result;
}

export function emptySummary(): RunSummary {
  return { passed: 0, failed: 0, warnings: 0, untested: 0, skipped: 0, observed: 0 };
}

export function summaryOf(rules: readonly RuleResult[]): RunSummary {
  const summary = emptySummary();
  for (const rule of rules) {
    if (rule.status === 'failed') {
      if (rule.severity === 'must') summary.failed += 1;
      else summary.warnings += 1;
    } else summary[rule.status] += 1;
  }
  return summary;
}

/** The service profile: what the observe rules recorded where the description is silent. */
export function profileOf(rules: readonly RuleResult[]): Record<string, unknown> {
  const profile: Record<string, unknown> = {};
  for (const rule of rules) if (rule.observed !== undefined) profile[rule.id] = rule.observed;
  return profile;
}

/**
 * The verdicts of one shard of a run: what the shard could not test another shard may have, so an
 * untested rule fails no shard (it stays `untested`, and merge decides); a failed rule fails it.
 */
export function shardVerdicts(rules: readonly RuleResult[]): RuleResult[] {
  return rules.map((rule) =>
    rule.status === 'untested' && rule.failsRun
      ? {
          ...rule,
          failsRun: false,
          reason: `${rule.reason ?? 'no exchange could test it'} in this shard (merge decides)`,
        }
      : rule,
  );
}

/** Every rule's verdict, in catalog order. */
export function verdictsOf(tally: TallyData, context: VerdictContext): RuleResult[] {
  return RULES.map((rule) => verdictOf(rule, tally, context));
}

/** The context as results.json keeps it (CLI.md's `run`), and back. */
export function contextToJson(context: VerdictContext): RunContext {
  const json: RunContext = {
    face: context.face,
    selected: RULES.filter((rule) => context.selected.has(rule.id)).map((rule) => rule.id),
    formats: [...context.formats],
    strict: context.strict,
  };
  if (context.readOnly !== undefined) json.readOnly = context.readOnly;
  if (context.uploadSize !== undefined) json.uploadSize = context.uploadSize;
  if (context.auto) json.auto = true;
  return json;
}

export function contextFromJson(json: RunContext): VerdictContext {
  return { ...json, selected: new Set(json.selected) };
}

/** 0 when no verdict fails the run, 1 otherwise: every report shows the same rules failing. */
export function exitCodeOf(rules: readonly Pick<RuleResult, 'failsRun'>[]): 0 | 1 {
  return rules.some((rule) => rule.failsRun) ? 1 : 0;
}
