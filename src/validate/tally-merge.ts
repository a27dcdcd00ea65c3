import type { ExchangeKind } from '../contract/exchange-facts.js';
import type { RuleId } from '../contract/rules.js';
import type {
  CoverageData,
  Finding,
  FormatKey,
  OperationCoverage,
  RuleResult,
  TrafficScope,
} from '../findings/types.js';
import { mergeCoverage } from './coverage.js';
import { addTime, emptyTally, KEPT_PER_RULE, type PerFormat, type TallyData } from './tally.js';

// Tallies made apart, added into one: worker threads' and shards' parts of one traffic, and the
// tally read back from a run's results.json. Apart from tally.ts, which counts exchanges as they
// are judged; merging is done once, at the end, over plain data.

const byPlace = (a: Finding, b: Finding) =>
  (a.at?.file ?? 0) - (b.at?.file ?? 0) || (a.at?.line ?? 0) - (b.at?.line ?? 0);

function addTable(into: Partial<Record<RuleId, PerFormat>>, from: Partial<Record<RuleId, PerFormat>>): void {
  for (const [rule, row] of Object.entries(from) as [RuleId, PerFormat][]) {
    const target = into[rule] ?? {};
    into[rule] = target;
    for (const [format, count] of Object.entries(row) as [FormatKey, number][])
      target[format] = (target[format] ?? 0) + count;
  }
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, count] of Object.entries(from)) into[key] = (into[key] ?? 0) + count;
}

function addTraffic(into: TrafficScope, from: TrafficScope | undefined): void {
  if (!from) return;
  into.orders += from.orders;
  if (from.exercised) {
    into.exercised ??= {};
    addCounts(into.exercised as Record<string, number>, from.exercised as Record<string, number>);
  }
  addCounts(into.notInterface, from.notInterface);
  for (const [kind, formats] of Object.entries(from.used) as [ExchangeKind, Record<string, number>][]) {
    const target = into.used[kind] ?? {};
    into.used[kind] = target;
    addCounts(target, formats);
  }
}

/** The record with its keys in order; nested one level when `depth` is 2. */
function sortedRecord<T>(record: Record<string, T>, depth = 1): Record<string, T> {
  const sorted: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) {
    const value = record[key] as T;
    sorted[key] = depth > 1 ? (sortedRecord(value as Record<string, unknown>) as T) : value;
  }
  return sorted;
}

/**
 * The tally with the keys of its counts in one order, whatever order its exchanges came in: a
 * recording judged on one thread, on four or in shards then writes the same results.json, byte
 * for byte, and a diff of two runs' reports shows only what changed.
 */
export function inKeyOrder(tally: TallyData): TallyData {
  tally.answers = sortedRecord(tally.answers, 2);
  tally.evidence = sortedRecord(tally.evidence, 2);
  tally.broken = sortedRecord(tally.broken, 2);
  tally.traffic.used = sortedRecord(tally.traffic.used, 2);
  tally.traffic.notInterface = sortedRecord(tally.traffic.notInterface);
  if (tally.traffic.exercised) tally.traffic.exercised = sortedRecord(tally.traffic.exercised);
  // Members stay in the order of their plan (the schema's), which every judge follows.
  tally.coverage = sortedRecord(tally.coverage as Record<string, OperationCoverage>);
  for (const operation of Object.values(tally.coverage) as OperationCoverage[]) {
    operation.exchanges = sortedRecord(operation.exchanges);
    operation.sent = sortedRecord(operation.sent);
    operation.answered = sortedRecord(operation.answered);
    operation.statuses = sortedRecord(operation.statuses);
  }
  return tally;
}

/** Tallies of disjoint parts of the same traffic (worker threads, shards), as if one had seen it all. */
export function mergeTallies(parts: readonly TallyData[]): TallyData {
  const merged = emptyTally();
  for (const part of parts) {
    merged.exchanges += part.exchanges;
    addTable(merged.evidence, part.evidence);
    addTable(merged.broken, part.broken);
    merged.findings.push(...part.findings);
    for (const [kind, answers] of Object.entries(part.answers) as [ExchangeKind, Record<string, number>][]) {
      const target = merged.answers[kind] ?? {};
      merged.answers[kind] = target;
      for (const [answer, count] of Object.entries(answers)) target[answer] = (target[answer] ?? 0) + count;
    }
    Object.assign(merged.observations, part.observations);
    addTraffic(merged.traffic, part.traffic);
    mergeCoverage(merged.coverage, part.coverage);
    for (const [rule, ms] of Object.entries(part.time ?? {}) as [RuleId, number][]) addTime(merged, rule, ms);
  }
  // Each part kept its own first few of each rule; the first few overall are among them.
  merged.findings.sort(byPlace);
  const shown = new Map<RuleId, number>();
  merged.findings = merged.findings.filter((finding) => {
    const count = (shown.get(finding.rule) ?? 0) + 1;
    shown.set(finding.rule, count);
    return count <= KEPT_PER_RULE;
  });
  return inKeyOrder(merged);
}

/**
 * The tally a run's results were made from, as far as results.json keeps it: evidence and breaches
 * per rule and format, the breaches shown, the answers seen and what was observed. Enough to merge
 * the results of shards of one run into the verdicts of the whole.
 */
export function tallyOfResult(result: {
  rules: readonly RuleResult[];
  answers: TallyData['answers'];
  exchanges: number;
  traffic?: TrafficScope;
  coverage?: CoverageData;
}): TallyData {
  const tally = emptyTally();
  tally.exchanges = result.exchanges;
  tally.answers = structuredClone(result.answers);
  addTraffic(tally.traffic, result.traffic);
  mergeCoverage(tally.coverage, result.coverage);
  for (const rule of result.rules) {
    for (const format of rule.formats) {
      if (format.evidence > 0)
        tally.evidence[rule.id] = { ...tally.evidence[rule.id], [format.format]: format.evidence };
      if (format.broken > 0) tally.broken[rule.id] = { ...tally.broken[rule.id], [format.format]: format.broken };
    }
    tally.findings.push(...rule.failures);
    addTime(tally, rule.id, rule.durationMs);
    // An observe rule's own breaches are shown as its observation; only a probe's record is kept apart.
    if (rule.observed !== undefined && rule.failures.length === 0) tally.observations[rule.id] = rule.observed;
  }
  return tally;
}
