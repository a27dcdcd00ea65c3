import type { ExchangeFacts, ExchangeKind } from '../contract/exchange-facts.js';
import { RULES, type RuleId, ruleById } from '../contract/rules.js';
import { keptCopy } from '../findings/kept-copy.js';
import type { CoverageData, ExchangeSummary, Finding, FormatKey, LineRef, TrafficScope } from '../findings/types.js';
import { recordCoverage } from './coverage.js';
import { type EvidencePlan, evidencePlan, verdictFormat } from './evidence-plan.js';
import type { Exchange, Violation } from './exchange.js';
import type { ReadBodies } from './format.js';
import { formatOnSide, type Tested } from './index.js';

// What a run saw, per rule and format: how many exchanges could have broken each rule (evidence),
// how many did, the first few that did, and how each kind of request was answered (for the reason
// of an untested rule). Every face fills one: the suite's probes, the proxy, validate's judges.
// Plain data, so worker threads and shards can send theirs to be merged (tally-merge.ts).

/** Rules whose precondition a client may not meet: counted per exchange, for verdicts on traffic. */
const WITH_PRECONDITION = RULES.filter((rule) => rule.evidence.exercised);

/** Breaches shown per rule; the others are counted. */
export const KEPT_PER_RULE = 50;

export type PerFormat = Partial<Record<FormatKey, number>>;

export interface TallyData {
  exchanges: number;
  evidence: Partial<Record<RuleId, PerFormat>>;
  broken: Partial<Record<RuleId, PerFormat>>;
  findings: Finding[];
  /** For each kind of request: how often each answer ("400 JSON", "no answer") came. */
  answers: Partial<Record<ExchangeKind, Record<string, number>>>;
  /** What the suite's observation probes recorded, by observe rule. */
  observations: Partial<Record<RuleId, unknown>>;
  /** Traffic: what it held besides the interface, and the formats each kind of request used. */
  traffic: TrafficScope;
  /** Which parts of the interface the exchanges exercised. */
  coverage: CoverageData;
  /** Per rule, the milliseconds its exchanges took (each exchange once): the time that tested it. */
  time?: Partial<Record<RuleId, number>>;
}

export function emptyTally(): TallyData {
  return {
    exchanges: 0,
    evidence: {},
    broken: {},
    findings: [],
    answers: {},
    observations: {},
    traffic: { used: {}, orders: 0, notInterface: {} },
    coverage: {},
    time: {},
  };
}

/** Adds the milliseconds of exchanges that tested `rule`. */
export function addTime(tally: TallyData, rule: RuleId, ms: number | undefined): void {
  if (!ms) return;
  tally.time ??= {};
  tally.time[rule] = (tally.time[rule] ?? 0) + ms;
}

/** The format a request of the interface used: what it sent, else asked for, else what came back. */
function usedFormat(facts: ExchangeFacts): 'json' | 'xml' | undefined {
  return facts.requestBody ?? facts.accept ?? facts.responseDocument ?? facts.responseBody;
}

function bump(table: Partial<Record<RuleId, PerFormat>>, rule: RuleId, format: FormatKey, by = 1): number {
  const row = table[rule] ?? {};
  table[rule] = row;
  const count = (row[format] ?? 0) + by;
  row[format] = count;
  return count;
}

/**
 * "201 JSON" and the like, made once per status and format: every exchange is counted under one,
 * and a label made anew is a new string to hash where the table looks it up.
 */
const formatLabels = { json: new Map<number, string>(), xml: new Map<number, string>() };
const LABELS_KEPT = 1024;

function formatLabel(status: number, format: 'json' | 'xml'): string {
  const labels = formatLabels[format] as Map<number, string> | undefined;
  if (!labels) return `${status} ${format.toUpperCase()}`;
  let label = labels.get(status);
  if (label === undefined) {
    label = `${status} ${format.toUpperCase()}`;
    if (labels.size >= LABELS_KEPT) labels.clear();
    labels.set(status, label);
  }
  return label;
}

function answerOf(facts: ExchangeFacts): string {
  if (facts.status === undefined) return 'no answer';
  const format = facts.responseDocument ?? facts.responseBody;
  if (format) return formatLabel(facts.status, format);
  // A body that is there but was not kept as text (a HAR saved without content): the reason a rule
  // was untested is then the recording, not the status, and the reason must say so.
  return facts.responseEmpty || facts.responseText
    ? String(facts.status)
    : `${facts.status} with its body not recorded`;
}

export interface TallyOptions {
  /** Makes the report's view of an exchange (around what a violation names); called only for the breaches that are kept. */
  summarise: (exchange: Exchange, violation: Violation) => ExchangeSummary;
}

export interface RecordOptions {
  at?: LineRef;
  /** The format the source meant the exchange to be in, where its bodies do not tell. */
  format?: FormatKey;
}

/** Per rule and format, the exchange that last counted there: "once per exchange" without a set per exchange. */
type Marks = Map<RuleId, Partial<Record<FormatKey, number>>>;

/** True the first time `rule` in `format` is marked for exchange number `seq`. */
function firstMark(marks: Marks, rule: RuleId, format: FormatKey, seq: number): boolean {
  let row = marks.get(rule);
  if (!row) {
    row = {};
    marks.set(rule, row);
  }
  if (row[format] === seq) return false;
  row[format] = seq;
  return true;
}

/** Evidence plans waiting to be added to a tally's tables, at most. */
const PENDING_PLANS = 256;

/** Exchanges counted under one evidence plan, and the milliseconds they took. */
interface PlanCount {
  exchanges: number;
  ms: number;
}

export class Tally {
  private readonly tables: TallyData = emptyTally();
  /**
   * Evidence not yet added to the tables: an exchange counts once under its plan, and the plan's
   * rules and formats are added when the tally is read. Exchanges alike share a plan, and a plan
   * names tens of rules: adding each at each exchange was a tenth of judging one.
   */
  private readonly pending = new Map<EvidencePlan, PlanCount>();
  private readonly kept = new Map<RuleId, number>();
  private recorded = 0;
  private readonly brokenMarks: Marks = new Map();

  constructor(private readonly options: TallyOptions) {}

  /** What the tally holds, every exchange recorded so far counted in it. */
  get data(): TallyData {
    this.settle();
    return this.tables;
  }

  private settle(): void {
    for (const [plan, count] of this.pending) {
      if (count.ms) for (const rule of plan.rules) addTime(this.tables, rule, count.ms);
      for (const [rule, format] of plan.verdicts) bump(this.tables.evidence, rule, format, count.exchanges);
    }
    this.pending.clear();
  }

  /** One judged exchange: what it could have broken and what it broke. */
  record(
    exchange: Exchange,
    judged: { violations: readonly Violation[]; tested: readonly Tested[]; facts: ExchangeFacts; read?: ReadBodies },
    options: RecordOptions = {},
  ): void {
    const data = this.tables;
    data.exchanges += 1;
    this.recorded += 1;
    const seq = this.recorded;
    if (judged.facts.kind !== 'other') {
      const answers = data.answers[judged.facts.kind] ?? {};
      data.answers[judged.facts.kind] = answers;
      const answer = answerOf(judged.facts);
      answers[answer] = (answers[answer] ?? 0) + 1;
      const used = data.traffic.used[judged.facts.kind] ?? {};
      data.traffic.used[judged.facts.kind] = used;
      const format = usedFormat(judged.facts);
      if (format) used[format] = (used[format] ?? 0) + 1;
      recordCoverage(data.coverage, judged.facts.kind, exchange, judged.read);
    }
    for (const rule of WITH_PRECONDITION)
      if (rule.evidence.exercised?.by(judged.facts)) {
        const exercised = data.traffic.exercised ?? {};
        data.traffic.exercised = exercised;
        exercised[rule.id] = (exercised[rule.id] ?? 0) + 1;
      }
    const plan = evidencePlan(judged.tested, options.format);
    const counted = this.pending.get(plan);
    if (counted) {
      counted.exchanges += 1;
      counted.ms += exchange.durationMs ?? 0;
    } else {
      // Plans are few in real traffic; traffic of ever new ones is added as it comes, not held.
      if (this.pending.size >= PENDING_PLANS) this.settle();
      this.pending.set(plan, { exchanges: 1, ms: exchange.durationMs ?? 0 });
    }
    for (const violation of judged.violations) {
      const format = verdictFormat(
        ruleById(violation.rule),
        formatOnSide(judged.facts, violation.side),
        options.format,
      );
      // An exchange breaks a rule once per format, however many members it got wrong.
      if (firstMark(this.brokenMarks, violation.rule, format, seq)) bump(data.broken, violation.rule, format);
      this.keep(exchange, violation, format, options.at);
    }
  }

  /**
   * A deliberate probe's expectation (a ReturnUrl of 513 units refused, a PDF accepted): evidence
   * for its rule in the probe's format when an answer came, and a breach when it was not met.
   */
  expected(exchange: Exchange, rule: RuleId, format: FormatKey, unmet?: Violation): void {
    const verdictIn = verdictFormat(ruleById(rule), format);
    // A 401 or 403 refuses the credentials, not what was sent: it neither meets the probe's
    // expectation (a refusal it wanted) nor breaks it (an acceptance it wanted). The rule waits
    // for an answer about the request itself, and is untested without one.
    const status = exchange.response?.status;
    if (status === 401 || status === 403) return;
    if (exchange.response) {
      bump(this.tables.evidence, rule, verdictIn);
      addTime(this.tables, rule, exchange.durationMs);
    }
    if (!unmet) return;
    bump(this.tables.broken, rule, verdictIn);
    this.keep(exchange, unmet, verdictIn);
  }

  private keep(exchange: Exchange, violation: Violation, format: FormatKey, at?: LineRef): void {
    const shown = (this.kept.get(violation.rule) ?? 0) + 1;
    this.kept.set(violation.rule, shown);
    if (shown > KEPT_PER_RULE) return;
    // Kept for the session's whole life: a copy holding nothing of the exchange, whose summary is cut
    // from bodies that may be megabytes (a cut string keeps its whole original alive).
    this.tables.findings.push(
      keptCopy(findingOf(violation, format, this.options.summarise(exchange, violation), at)).copy,
    );
  }

  /** An exchange of traffic that is not the interface: counted by reason, judged by no rule. */
  outside(reason: string): void {
    const counts = this.tables.traffic.notInterface;
    counts[reason] = (counts[reason] ?? 0) + 1;
  }

  /**
   * An exchange of the interface that a replay could not send again: its operation and format
   * were used by the traffic, so their rules are untested rather than skipped, and say why.
   */
  notSent(kind: Exclude<ExchangeKind, 'other'>, format: 'json' | 'xml' | undefined): void {
    const data = this.tables;
    const answers = data.answers[kind] ?? {};
    data.answers[kind] = answers;
    answers[NOT_SENT] = (answers[NOT_SENT] ?? 0) + 1;
    const used = data.traffic.used[kind] ?? {};
    data.traffic.used[kind] = used;
    if (format) used[format] = (used[format] ?? 0) + 1;
  }

  /** An order answer, read for the URLs it gave. */
  order(): void {
    this.tables.traffic.orders += 1;
  }

  /** What an observation probe recorded: the evidence of an observe rule. */
  observe(rule: RuleId, observation: unknown): void {
    if (!(rule in this.tables.observations)) bump(this.tables.evidence, rule, 'any');
    this.tables.observations[rule] = observation;
  }
}

function findingOf(violation: Violation, format: FormatKey, exchange: ExchangeSummary, at?: LineRef): Finding {
  const finding: Finding = { rule: violation.rule, format, side: violation.side, message: violation.message, exchange };
  if (violation.path !== undefined) finding.path = violation.path;
  if (at) finding.at = at;
  return finding;
}

/** How an answer table counts a request that a replay could not send again. */
export const NOT_SENT = 'not sent again';
