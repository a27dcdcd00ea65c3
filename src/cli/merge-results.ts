import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { TOOL_NAME } from '../contract/package-root.js';
import { RULES } from '../contract/rules.js';
import type { RunResult, ShardFacts } from '../findings/types.js';
import { UsageError } from '../findings/usage-error.js';
import { terminalWidth } from '../report/console-summary.js';
import { runResult } from '../report/run-result.js';
import { mergeTallies, tallyOfResult } from '../validate/tally-merge.js';
import { contextFromJson, verdictsOf } from '../validate/verdicts.js';
import { type ReportArguments, showResult, writeResultReports } from './result-outputs.js';
import { checkResultsShape, parseUntrustedJson, ShapeError } from './results-shape.js';

// Shards of one `validate` (validate --shard K/N on several machines or processes) each write a
// results.json; merge combines them into the report of the whole, with the statuses, counts and
// exit code one run over all the traffic would have given.

function readResults(file: string, files: number): RunResult {
  let value: Partial<RunResult>;
  try {
    value = parseUntrustedJson(readFileSync(file, 'utf8')) as Partial<RunResult>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof ShapeError)
      throw new UsageError(`${file} is not a results.json merge can take: ${error.message}; run its shard again`);
    if (error instanceof SyntaxError)
      throw new UsageError(
        `${file} is not a results.json (it is not one JSON document): merge takes the results.json that validate --shard K/N wrote`,
      );
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (value?.tool !== TOOL_NAME || !Array.isArray(value.rules) || !value.run || !value.answers)
    throw new UsageError(`${file} is not a results.json of ${TOOL_NAME} (run or validate) of this version`);
  try {
    checkResultsShape(value, files);
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    throw new UsageError(`${file} is not a results.json merge can take: ${error.message}; run its shard again`);
  }
  // A run of the suite is whole in itself: taken as a part, it would pass for every shard of a run.
  if (value.run.face === 'suite')
    throw new UsageError(
      `${file} is the results of a run of the suite, which is whole in itself: merge takes the results.json that validate (--shard K/N) wrote of parts of one traffic`,
    );
  return value as RunResult;
}

const shardName = (result: RunResult) => (result.shard ? `${result.shard.k}/${result.shard.n}` : 'no shard');

/**
 * Shards make one run only all together, each once (CLI.md, "Shards"): a shard missing would pass
 * its rules off as untested or passed on part of the traffic, one given twice would double its
 * evidence. Results without a shard (parts a team split itself) are taken as given, each file once.
 */
export function checkShardSet(results: readonly RunResult[], files: readonly string[]): void {
  const sharded = results.filter((result) => result.shard);
  if (sharded.length > 0 && sharded.length < results.length) {
    const whole = results.findIndex((result) => !result.shard);
    const part = results.findIndex((result) => result.shard);
    throw new UsageError(
      `${files[whole]} is no shard (validate without --shard) but ${files[part]} is shard ${shardName(results[part] as RunResult)}: merge the shards of one run`,
    );
  }
  const seen = new Map<string, number>();
  for (const [index, result] of results.entries()) {
    // Unsharded results are told apart by when and on what they ran.
    const key = result.shard ? shardName(result) : `${result.startedAt} ${result.target} ${result.durationMs}`;
    const before = seen.get(key);
    if (before !== undefined)
      throw new UsageError(
        result.shard
          ? `shard ${key} is given twice (${files[before]}, ${files[index]}); give each shard's results.json once`
          : `${files[before]} and ${files[index]} are the same results; give each once`,
      );
    seen.set(key, index);
  }
  if (sharded.length === 0) return;
  sameRecordings(
    sharded,
    files.filter((_, index) => results[index]?.shard),
  );
  const counts = [...new Set(sharded.map((result) => result.shard?.n))];
  if (counts.length > 1)
    throw new UsageError(
      `the results are shards of different splits (${sharded.map(shardName).join(', ')}): merge the shards of one run`,
    );
  const n = counts[0] as number;
  const missing = Array.from({ length: n }, (_, index) => index + 1).filter((k) => !seen.has(`${k}/${n}`));
  if (missing.length > 0)
    throw new UsageError(
      `shard ${missing.map((k) => `${k}/${n}`).join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing (given: ${sharded.map(shardName).join(', ')}); merge needs every shard's results.json`,
    );
}

const describeRecordings = (recordings: NonNullable<ShardFacts['recordings']>) =>
  recordings.map(({ name, bytes }) => (bytes === null ? name : `${name}, ${bytes} bytes`)).join('; ');

/** Shards of one run judged the same recordings: a stale shard of another run would pass for part of this one. */
function sameRecordings(sharded: readonly RunResult[], files: readonly string[]): void {
  const [first] = sharded;
  const judged = first?.shard?.recordings;
  if (!first || !judged) return;
  for (const [index, result] of sharded.entries()) {
    const recordings = result.shard?.recordings;
    if (recordings && !isDeepStrictEqual(recordings, judged))
      throw new UsageError(
        `shard ${shardName(result)} (${files[index]}) judged other recordings (${describeRecordings(recordings)}) than shard ${shardName(first)} (${describeRecordings(judged)}): merge the shards of one run`,
      );
  }
}

/** Every result names every rule of the catalog once: one that lost some would drop their failures. */
function wholeRules(results: readonly RunResult[], files: readonly string[]): void {
  const catalog = RULES.map((rule) => rule.id).sort();
  for (const [index, result] of results.entries()) {
    const ids = result.rules.map((rule) => rule?.id).sort();
    if (!isDeepStrictEqual(ids, catalog))
      throw new UsageError(
        `${files[index]} does not list every rule of the catalog once (${ids.length} of ${catalog.length}): it was changed or cut; run its shard again`,
      );
  }
}

export function mergeResults(results: readonly RunResult[]): RunResult {
  const [first] = results;
  if (!first) throw new UsageError('merge needs at least one results.json');
  for (const other of results.slice(1)) {
    if (!isDeepStrictEqual(other.run, first.run))
      throw new UsageError(
        'the results were made with different rules, formats or options (--only/--skip, --format, --strict): they are not shards of one run',
      );
  }
  const tally = mergeTallies(results.map(tallyOfResult));
  const context = contextFromJson(first.run);
  const started = Math.min(...results.map((r) => Date.parse(r.startedAt)));
  const ended = Math.max(...results.map((r) => Date.parse(r.startedAt) + r.durationMs));
  const targets = [...new Set(results.map((r) => r.target))].join(', ');
  const merged = runResult({ target: targets, started, context, rules: verdictsOf(tally, context), tally });
  return { ...merged, durationMs: ended - started };
}

/** `merge`: the shards' results.json read, checked as one set, merged, reported. */
export function mergeAndReport(files: string[], argv: ReportArguments & { quiet?: boolean }): void {
  const parts = files.map((file) => readResults(file, files.length));
  wholeRules(parts, files);
  checkShardSet(parts, files);
  const result = mergeResults(parts);
  writeResultReports(result, argv);
  showResult(result, argv.reporter, { width: terminalWidth(process.stdout), brief: argv.quiet === true });
}
