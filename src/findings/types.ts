import type { ExchangeKind } from '../contract/exchange-facts.js';
import type { Face, RuleId, Severity } from '../contract/rules.js';
import type { ReplaySummary } from './replay.js';

// The few types every face and writer shares: what the core found in an exchange (a violation),
// that finding tied to the exchange that showed it (a finding), and the verdict of a run per rule.

export type Side = 'request' | 'response';

/** The format a verdict is given in: JSON, XML, or 'any' for a rule that does not depend on one. */
export type FormatKey = 'json' | 'xml' | 'any';

/** What the core found wrong in one exchange. */
export interface Violation {
  rule: RuleId;
  severity: Severity;
  side: Side;
  message: string;
  /** Where in the body, as a JSON pointer of JSON names (e.g. /billing/address/country). */
  path?: string;
}

/** An exchange as a report shows it: credentials redacted, bodies trimmed. */
export interface ExchangeSummary {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  error?: string;
  /** A command sending the request again, credentials left to variables ($TOKEN). */
  curl?: string;
  /** A few lines of the body a finding names, around the member at its path. */
  excerpt?: string;
}

/** Where an exchange came from in a recording: the file's place in the list and the line's number. */
export interface LineRef {
  file: number;
  line: number;
}

/** A violation with the exchange that showed it, in the format it was spoken in. */
export interface Finding {
  rule: RuleId;
  format: FormatKey;
  side: Side;
  message: string;
  path?: string;
  exchange: ExchangeSummary;
  at?: LineRef;
}

/**
 * `passed`: tested and held; `failed`: broken (a `should` rule counts as a warning); `untested`:
 * selected, but no exchange could have broken it; `skipped`: not selected or not judgeable here;
 * `observed`: an `observe` rule that recorded something.
 */
export type RuleStatus = 'passed' | 'failed' | 'untested' | 'skipped' | 'observed';

export interface FormatResult {
  format: FormatKey;
  status: RuleStatus;
  /** Exchanges that could have broken the rule in this format. */
  evidence: number;
  /** Exchanges that broke it in this format (more than the findings kept to show). */
  broken: number;
  reason?: string;
}

export interface RuleResult {
  id: RuleId;
  severity: Severity;
  status: RuleStatus;
  evidence: number;
  reason?: string;
  /** Whether this verdict fails the run (a broken or untested must rule; with --strict, should too). */
  failsRun: boolean;
  formats: FormatResult[];
  failures: Finding[];
  /** Breaches beyond the failures kept to show. */
  moreFailures: number;
  /** What an `observe` rule recorded, for the service profile. */
  observed?: unknown;
  /** Milliseconds the exchanges that tested the rule took, each exchange counted once. */
  durationMs?: number;
}

export interface RunSummary {
  passed: number;
  failed: number;
  warnings: number;
  untested: number;
  skipped: number;
  observed: number;
}

/** How a run reached its verdicts: what it judged, so that shards of one run merge into its verdicts. */
export interface RunContext {
  face: Face;
  selected: RuleId[];
  formats: ('json' | 'xml')[];
  strict: boolean;
  readOnly?: boolean;
  uploadSize?: boolean;
  /** Traffic judged on the formats and operations it used (no --format or --only given). */
  auto?: boolean;
}

/** What a traffic held besides the interface, and which formats each kind of request used. */
export interface TrafficScope {
  /** Per kind of request, how many exchanges asked for or sent each format. */
  used: Partial<Record<ExchangeKind, Partial<Record<'json' | 'xml', number>>>>;
  /** Order answers read for the URLs they gave (judged by no rule). */
  orders: number;
  /** Exchanges that are not the interface, by reason (judged by no rule). */
  notInterface: Record<string, number>;
  /** Per rule with a narrower precondition (catalog: evidence.exercised), the requests that met it. */
  exercised?: Partial<Record<RuleId, number>>;
}

/** How often a documented member was present, absent or nil where it could be. */
export interface MemberCounts {
  present: number;
  absent: number;
  nil: number;
}

/** What the exchanges of one operation exercised (CLI.md, "Reports": coverage). */
export interface OperationCoverage {
  /** Exchanges by the format of their documents ("none": no JSON or XML on either side). */
  exchanges: Partial<Record<'json' | 'xml' | 'none', number>>;
  /** Documented members of requests and of accepted answers, by format, named as the format writes them. */
  request: Partial<Record<'json' | 'xml', Record<string, MemberCounts>>>;
  response: Partial<Record<'json' | 'xml', Record<string, MemberCounts>>>;
  /** Content-Types sent and answered (media types, "(none)" for none). */
  sent: Record<string, number>;
  answered: Record<string, number>;
  /** Status codes answered ("no answer" when none came). */
  statuses: Record<string, number>;
}

export type CoverageData = Partial<Record<'POST checkout' | 'GET checkout' | 'POST files', OperationCoverage>>;

/** What `run --generate` did: the seed that repeats it, the cases run and what they found. */
export interface GeneratedSummary {
  seed: number;
  /** Cases run, of those asked for. */
  ran: number;
  asked: number;
  /** The time budget ran out before every case ran. */
  interrupted: boolean;
  failures: { property: string; rule: RuleId; message: string; shrinks: number }[];
}

/** What a `proxy -- COMMAND` session ran besides the proxy. */
export interface WrappedCommand {
  command: string;
  /** The command's exit code; a signal's name when one ended it. */
  exitCode: number | string;
  /** The proxy's own verdict on the session: 0 held, 1 failed, 2 could not be made or is incomplete. */
  verdict?: number;
}

/**
 * Which part of one `validate` run a shard's results are, and of which recordings: merge takes
 * shards of one run only (the files by name and size; standard input has no size).
 */
export interface ShardFacts {
  k: number;
  n: number;
  recordings?: { name: string; bytes: number | null }[];
}

/** A broken rule among a client test's exchanges: how often, and the first few messages. */
export interface ClientTestFailure {
  rule: string;
  severity: 'must' | 'should' | 'observe';
  count: number;
  messages: string[];
}

/** A client's own test (PHPUnit, xUnit, vitest…) behind the proxy or serve: the verdict on its exchanges. */
export interface ClientTestVerdict {
  name: string;
  /** Exchanges of the test, judged or not. */
  exchanges: number;
  /** Exchanges of the interface among them, judged by the rules. */
  judged: number;
  /** No must rule broken (and, with strict, no should rule). */
  passed: boolean;
  failed: ClientTestFailure[];
  warnings: ClientTestFailure[];
}

/** One client team's traffic through a shared proxy (--clients-by): the verdict on its exchanges. */
export interface ClientVerdict {
  /** The client's id (OAuth client_id, Basic user or header value); `unknown` when none could be told. */
  client: string;
  exchanges: number;
  judged: number;
  passed: boolean;
  failed: ClientTestFailure[];
  warnings: ClientTestFailure[];
}

/** The `clients` section of results.json: how exchanges were told apart, and each client's verdict. */
export interface ClientsSection {
  by: string;
  clients: ClientVerdict[];
}

export interface RunResult {
  tool: string;
  version: string;
  target: string;
  startedAt: string;
  durationMs: number;
  strict: boolean;
  summary: RunSummary;
  rules: RuleResult[];
  profile: Record<string, unknown>;
  /** Exchanges judged. */
  exchanges: number;
  run: RunContext;
  /** How each kind of request was answered ("400 JSON": 6), the ground of untested reasons. */
  answers: Partial<Record<ExchangeKind, Record<string, number>>>;
  /** Traffic only: what it held besides the interface and what it used. */
  traffic?: TrafficScope;
  /** Which parts of the interface the run's exchanges exercised. */
  coverage?: CoverageData;
  /** `run --generate`: what the generated tests did, with their seed. */
  generated?: GeneratedSummary;
  /** `proxy -- COMMAND`: the command and how it ended, beside the proxy's verdict. */
  command?: WrappedCommand;
  /** The exit code the run ends with, when it is not the verdict's own (a failed wrapped command). */
  exitCode?: number;
  /** `validate --shard K/N`: which part of one run these results are (merge needs every K once). */
  shard?: ShardFacts;
  /** `replay`: what was sent again, what could not be, and where the new answers differ. */
  replay?: ReplaySummary;
  /** Traffic marked by the client's own tests: the verdict per test, in the order first seen. */
  clientTests?: ClientTestVerdict[];
  /** --clients-by: the verdict per client team, in the order first seen. */
  clients?: ClientsSection;
  /** A recording asked for that is not whole (a full disk, a stalled pipe): why. */
  recording?: { complete: false; problem: string };
}
