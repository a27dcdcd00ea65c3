import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Severity } from '../contract/rule-facts.js';
import type { Side } from '../findings/types.js';
import { type AnswerOperation, answerOperation } from './answer-operation.js';

// The metrics of a proxy or `serve` that runs for days, in a registry of its own (never prom-client's
// global one, which a host program embedding the package may use). The exchange path only calls the
// counting methods below, each an increment on a child made once; gauges are read when scraped.
// Every label is bounded: faces, verdicts, rule IDs of the catalog, severities, sides, the
// interface's operations, refusal reasons and webhook outcomes are fixed sets. Never a URL, a code,
// a token or a test name.

export const METRICS_PREFIX = 'print_conformance_';

export type Face = 'proxy' | 'serve';
export type ExchangeVerdict = 'clean' | 'broken' | 'not judged';
export type RefusalReason = 'connection limit' | 'host not allowed' | 'handshake refused' | 'enforce';
export type WebhookOutcome = 'delivered' | 'refused' | 'no answer';
/** Why a recording stopped being written: its file could not be written, or its writer could not keep up. */
export type RecordingFailure = 'write' | 'stalled' | 'other';

const RECORDING_FAILURES = new Set<string>(['write', 'stalled']);

/** Upstream answer times, in seconds: from a fast local service to the target timeout's order. */
const ANSWER_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * A label whose values come from outside (a client's id): the first `limit` values seen are kept,
 * every later one is `other`, so that a scrape never grows with the traffic.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();
  constructor(
    private readonly limit = 100,
    private readonly rest = 'other',
  ) {}

  of(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return this.rest;
    this.seen.add(value);
    return value;
  }
}

/** Read when scraped: what is open now. */
export interface OpenCounts {
  clientConnections?: () => number;
  tunnels?: () => number;
  eventStreams?: () => number;
  liveWindowBytes?: () => number;
}

type Child = { inc(value?: number): void };

export class OperationsMetrics {
  readonly registry = new Registry();
  private readonly exchanges: Counter<'face' | 'verdict'>;
  private readonly breaches: Counter<'rule' | 'severity' | 'side'>;
  private readonly answerSeconds: Histogram<'operation'>;
  private readonly refusals: Counter<'reason'>;
  private readonly recordingBytes: Counter;
  private readonly recordingFailures: Counter<'reason'>;
  private readonly webhookTries: Counter<'outcome'>;
  private readonly open: Required<OpenCounts> = {
    clientConnections: () => 0,
    tunnels: () => 0,
    eventStreams: () => 0,
    liveWindowBytes: () => 0,
  };
  /** Children made once per label set: the exchange path then only adds to a number. */
  private readonly verdictChildren = new Map<ExchangeVerdict, Child>();
  private readonly breachChildren = new Map<string, Child>();
  private readonly answerLabels = new Map<AnswerOperation, { operation: AnswerOperation }>();

  constructor(
    private readonly face: Face,
    options: { defaultMetrics?: boolean } = {},
  ) {
    const registers = [this.registry];
    this.exchanges = new Counter({
      name: `${METRICS_PREFIX}exchanges_total`,
      help: 'Exchanges finished, by face and verdict (clean, broken, not judged)',
      labelNames: ['face', 'verdict'],
      registers,
    });
    this.breaches = new Counter({
      name: `${METRICS_PREFIX}breaches_total`,
      help: 'Rule breaches found in exchanges, by rule ID, severity and side',
      labelNames: ['rule', 'severity', 'side'],
      registers,
    });
    this.answerSeconds = new Histogram({
      name: `${METRICS_PREFIX}upstream_answer_seconds`,
      help: "Time until the answer's head, by the interface's operation (other: anything else)",
      labelNames: ['operation'],
      buckets: ANSWER_BUCKETS,
      registers,
    });
    this.refusals = new Counter({
      name: `${METRICS_PREFIX}refusals_total`,
      help: 'Connections and requests turned away, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.recordingBytes = new Counter({
      name: `${METRICS_PREFIX}recording_bytes_total`,
      help: 'Bytes of NDJSON lines handed to the recording',
      registers,
    });
    this.recordingFailures = new Counter({
      name: `${METRICS_PREFIX}recording_write_failures_total`,
      help: 'Times the recording stopped being written, by reason (write, stalled)',
      labelNames: ['reason'],
      registers,
    });
    this.webhookTries = new Counter({
      name: `${METRICS_PREFIX}webhook_tries_total`,
      help: "serve's webhook tries, by outcome (delivered: 2xx; refused: another status; no answer)",
      labelNames: ['outcome'],
      registers,
    });
    const open = this.open;
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name: `${METRICS_PREFIX}${name}`,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge('open_client_connections', 'Client connections open now', () => open.clientConnections());
    gauge('open_tunnels', 'CONNECT tunnels open now', () => open.tunnels());
    gauge('open_event_streams', 'Event streams of the live page and control API open now', () => open.eventStreams());
    gauge('live_window_bytes', "Bytes the live page's window of recent exchanges holds", () => open.liveWindowBytes());
    // Zero from the start: a rate over a series that appears only with its first event misses it.
    for (const verdict of ['clean', 'broken', 'not judged'] as const) this.exchanges.labels(face, verdict).inc(0);
    for (const reason of ['connection limit', 'host not allowed', 'handshake refused', 'enforce'] as const)
      this.refusals.labels(reason).inc(0);
    this.recordingFailures.labels('write').inc(0);
    if (face === 'serve')
      for (const outcome of ['delivered', 'refused', 'no answer']) this.webhookTries.labels(outcome).inc(0);
    // The process's own: resident memory, open file descriptors, event-loop delay, garbage collection.
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: METRICS_PREFIX });
  }

  /** Where the gauges read what is open now. */
  reads(counts: OpenCounts): void {
    Object.assign(this.open, Object.fromEntries(Object.entries(counts).filter(([, read]) => read !== undefined)));
  }

  /** One finished exchange and the breaches found in it (rule IDs of the catalog only). */
  exchange(verdict: ExchangeVerdict, breaches: readonly { rule: string; severity: Severity; side: Side }[]): void {
    let child = this.verdictChildren.get(verdict);
    if (!child) {
      child = this.exchanges.labels(this.face, verdict);
      this.verdictChildren.set(verdict, child);
    }
    child.inc();
    for (const breach of breaches) {
      const key = `${breach.rule}\u0000${breach.severity}\u0000${breach.side}`;
      let counted = this.breachChildren.get(key);
      if (!counted) {
        counted = this.breaches.labels(breach.rule, breach.severity, breach.side);
        this.breachChildren.set(key, counted);
      }
      counted.inc();
    }
  }

  /** How long the upstream (for serve: the service itself) took to begin its answer. */
  answered(method: string, url: string, base: string, headMs: number): void {
    const operation = answerOperation(method, url, base);
    let labels = this.answerLabels.get(operation);
    if (!labels) {
      labels = { operation };
      this.answerLabels.set(operation, labels);
    }
    this.answerSeconds.observe(labels, headMs / 1000);
  }

  refused(reason: RefusalReason): void {
    this.refusals.labels(reason).inc();
  }

  recorded(bytes: number): void {
    this.recordingBytes.inc(bytes);
  }

  /** The recording stopped being written (a full disk, a removed folder, a writer that cannot keep up). */
  recordingWriteFailed(reason: RecordingFailure | string): void {
    this.recordingFailures.labels(RECORDING_FAILURES.has(reason) ? reason : 'other').inc();
  }

  webhookTried(outcome: WebhookOutcome): void {
    this.webhookTries.labels(outcome).inc();
  }
}
