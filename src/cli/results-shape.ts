// A results.json that `merge` is given comes from another machine or job: it is read as untrusted
// data. Its shape is checked before anything is added up, so that a changed or hostile file is
// refused in one line instead of crashing the merge (a date that is no date, nesting too deep to
// walk) or changing its outcome: a key "__proto__" added to would reach every object of the
// process, and a count that is no exact integer would be written as null and lost on a re-merge.

/** Deeper than any results.json the tool writes: walking it could exhaust the stack. */
const MAX_DEPTH = 64;

/** Keys that name an object's prototype machinery rather than data. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A century: a run's duration beyond it is no run's. */
const LONGEST_RUN_MS = 100 * 366 * 24 * 3600 * 1000;

export class ShapeError extends Error {}

/** How deeply arrays and objects nest in JSON text, counted without parsing it. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x7d || char === 0x5d) depth--;
  }
  return deepest;
}

/** JSON text parsed as data: too deep a document and prototype keys are refused. */
export function parseUntrustedJson(text: string): unknown {
  if (nesting(text) > MAX_DEPTH) throw new ShapeError(`it nests deeper than ${MAX_DEPTH} levels`);
  return JSON.parse(text, (key, value) => {
    if (UNSAFE_KEYS.has(key)) throw new ShapeError(`it holds a key "${key}"`);
    return value;
  });
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

class ShapeChecker {
  /** `limit`: the largest count each file may hold so that the sum of all stays exact. */
  constructor(private readonly limit: number) {}

  object(value: unknown, at: string): Json {
    if (!isObject(value)) throw new ShapeError(`${at} is not an object`);
    return value;
  }

  array(value: unknown, at: string): unknown[] {
    if (!Array.isArray(value)) throw new ShapeError(`${at} is not a list`);
    return value;
  }

  text(value: unknown, at: string): string {
    if (typeof value !== 'string') throw new ShapeError(`${at} is not a string`);
    return value;
  }

  flag(value: unknown, at: string, optional = false): void {
    if (optional && value === undefined) return;
    if (typeof value !== 'boolean') throw new ShapeError(`${at} is not true or false`);
  }

  count(value: unknown, at: string): void {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      throw new ShapeError(`${at} is not a count (a whole number from 0)`);
    if (value > this.limit) throw new ShapeError(`${at} is too large to add up exactly`);
  }

  milliseconds(value: unknown, at: string, optional = false): void {
    if (optional && value === undefined) return;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > this.limit)
      throw new ShapeError(`${at} is not a duration in milliseconds`);
  }

  /** An object of counts; `depth` levels of objects above them. */
  counts(value: unknown, at: string, depth = 0): void {
    for (const [key, member] of Object.entries(this.object(value, at))) {
      if (depth > 0) this.counts(member, `${at}.${key}`, depth - 1);
      else this.count(member, `${at}.${key}`);
    }
  }
}

function checkRules(check: ShapeChecker, value: unknown): void {
  for (const [index, item] of check.array(value, 'rules').entries()) {
    const at = `rules[${index}]`;
    const rule = check.object(item, at);
    check.text(rule.id, `${at}.id`);
    check.count(rule.moreFailures ?? 0, `${at}.moreFailures`);
    check.milliseconds(rule.durationMs, `${at}.durationMs`, true);
    for (const [place, format] of check.array(rule.formats, `${at}.formats`).entries()) {
      const here = check.object(format, `${at}.formats[${place}]`);
      check.text(here.format, `${at}.formats[${place}].format`);
      check.count(here.evidence, `${at}.formats[${place}].evidence`);
      check.count(here.broken, `${at}.formats[${place}].broken`);
    }
    for (const [place, failure] of check.array(rule.failures, `${at}.failures`).entries()) {
      const here = check.object(failure, `${at}.failures[${place}]`);
      check.text(here.rule, `${at}.failures[${place}].rule`);
      check.text(here.message, `${at}.failures[${place}].message`);
      const exchange = check.object(here.exchange, `${at}.failures[${place}].exchange`);
      check.text(exchange.method, `${at}.failures[${place}].exchange.method`);
      check.text(exchange.url, `${at}.failures[${place}].exchange.url`);
      if (here.at !== undefined) {
        const line = check.object(here.at, `${at}.failures[${place}].at`);
        check.count(line.file, `${at}.failures[${place}].at.file`);
        check.count(line.line, `${at}.failures[${place}].at.line`);
      }
    }
  }
}

function checkRun(check: ShapeChecker, value: unknown): void {
  const run = check.object(value, 'run');
  check.text(run.face, 'run.face');
  for (const id of check.array(run.selected, 'run.selected')) check.text(id, 'run.selected[]');
  for (const format of check.array(run.formats, 'run.formats'))
    if (format !== 'json' && format !== 'xml') throw new ShapeError('run.formats holds a format other than json, xml');
  check.flag(run.strict, 'run.strict');
  for (const name of ['readOnly', 'uploadSize', 'auto']) check.flag(run[name], `run.${name}`, true);
}

function checkTraffic(check: ShapeChecker, value: unknown): void {
  if (value === undefined) return;
  const traffic = check.object(value, 'traffic');
  check.counts(traffic.used, 'traffic.used', 1);
  check.count(traffic.orders, 'traffic.orders');
  check.counts(traffic.notInterface, 'traffic.notInterface');
  if (traffic.exercised !== undefined) check.counts(traffic.exercised, 'traffic.exercised');
}

function checkCoverage(check: ShapeChecker, value: unknown): void {
  if (value === undefined) return;
  for (const [operation, item] of Object.entries(check.object(value, 'coverage'))) {
    const at = `coverage.${operation}`;
    const part = check.object(item, at);
    check.counts(part.exchanges, `${at}.exchanges`);
    check.counts(part.request, `${at}.request`, 2);
    check.counts(part.response, `${at}.response`, 2);
    for (const name of ['sent', 'answered', 'statuses']) check.counts(part[name], `${at}.${name}`);
  }
}

function checkShard(check: ShapeChecker, value: unknown): void {
  if (value === undefined) return;
  const shard = check.object(value, 'shard');
  check.count(shard.k, 'shard.k');
  check.count(shard.n, 'shard.n');
  if ((shard.k as number) < 1 || (shard.k as number) > (shard.n as number))
    throw new ShapeError('shard.k is not between 1 and shard.n');
  if (shard.recordings === undefined) return;
  for (const item of check.array(shard.recordings, 'shard.recordings')) {
    const recording = check.object(item, 'shard.recordings[]');
    check.text(recording.name, 'shard.recordings[].name');
    if (recording.bytes !== null) check.count(recording.bytes, 'shard.recordings[].bytes');
  }
}

/**
 * Checks what merge reads of a results.json; `files` is how many are merged, so that every sum of
 * counts stays an exact integer. Throws a ShapeError saying what is wrong where.
 */
export function checkResultsShape(value: unknown, files: number): void {
  const check = new ShapeChecker(Math.floor(Number.MAX_SAFE_INTEGER / Math.max(1, files)));
  const result = check.object(value, 'the document');
  check.text(result.target, 'target');
  const started = check.text(result.startedAt, 'startedAt');
  if (!Number.isFinite(Date.parse(started))) throw new ShapeError('startedAt is not a date');
  check.milliseconds(result.durationMs, 'durationMs');
  // The merged run's end is its start plus this: it must stay a date.
  if ((result.durationMs as number) > LONGEST_RUN_MS) throw new ShapeError('durationMs is longer than any run');
  check.count(result.exchanges, 'exchanges');
  checkRun(check, result.run);
  checkRules(check, result.rules);
  check.counts(result.answers, 'answers', 1);
  checkTraffic(check, result.traffic);
  checkCoverage(check, result.coverage);
  checkShard(check, result.shard);
}
