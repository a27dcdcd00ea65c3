import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from 'prom-client';
import type { Severity } from '../contract/rule-facts.js';
import type { Side } from '../findings/types.js';
import { type AnswerOperation, answerOperation } from './answer-operation.js';

// The metrics of a proxy or `serve` that runs for days, in a registry of its own (never prom-client's
// global one, which a host program embedding the package may use). The exchange path only calls the
// counting methods below, each adding to a plain number; prom-client's metrics read those numbers
// when scraped (its own increments hash their labels each time), and gauges read what is open then.
// Every label is bounded: faces, verdicts, rule IDs of the catalog, severities, sides, the
// interface's operations, refusal reasons and webhook outcomes are fixed sets. Never a URL, a code,
// a token or a test name.

export const METRICS_PREFIX = 'print_conformance_';
/** How often the process's event-loop delay is sampled, in ms (see collectDefaultMetrics below). */
export const EVENT_LOOP_SAMPLE_MS = 100;

export type Face = 'proxy' | 'serve';
export type ExchangeVerdict = 'clean' | 'broken' | 'not judged';
export type RefusalReason = 'connection limit' | 'host not allowed' | 'handshake refused' | 'enforce';
export type WebhookOutcome = 'delivered' | 'refused' | 'no answer';
/** Why a recording stopped being written: its file could not be written, or its writer could not keep up. */
export type RecordingFailure = 'write' | 'stalled' | 'other';

const RECORDING_FAILURES = new Set<string>(['write', 'stalled']);

/** Upstream answer times, in seconds: from a fast local service to the target timeout's order. */
const ANSWER_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Read when scraped: what is open now. */
export interface OpenCounts {
  clientConnections?: () => number;
  tunnels?: () => number;
  eventStreams?: () => number;
  liveWindowBytes?: () => number;
}

const VERDICTS = ['clean', 'broken', 'not judged'] as const;
const REFUSALS = ['connection limit', 'host not allowed', 'handshake refused', 'enforce'] as const;

interface Breaches {
  labels: { rule: string; severity: string; side: string; client?: string };
  count: number;
}

/** One operation's answer times: counts per bucket (not cumulative: summed when scraped), sum and count. */
interface AnswerTimes {
  buckets: number[];
  sum: number;
  count: number;
}

export class OperationsMetrics {
  readonly registry = new Registry();
  private readonly verdicts: Record<ExchangeVerdict, number> = { clean: 0, broken: 0, 'not judged': 0 };
  private readonly breaches = new Map<string, Breaches>();
  // With --clients-by, exchanges and breaches are counted per client as well: the label is the
  // client's id through a bounded mapping (the first 100 clients seen, later ones `other`).
  private clientLabel: ((client: string) => string) | undefined;
  private readonly clientVerdicts = new Map<string, { labels: { client: string; verdict: string }; count: number }>();
  private readonly answers = new Map<AnswerOperation, AnswerTimes>();
  private readonly refusals: Record<RefusalReason, number> = {
    'connection limit': 0,
    'host not allowed': 0,
    'handshake refused': 0,
    enforce: 0,
  };
  /** Bytes handed to the recording: a plain number on the exchange's path, read when scraped. */
  private recordingBytes = 0;
  private readonly recordingFailures: Counter<'reason'>;
  private readonly webhookTries: Counter<'outcome'>;
  private readonly open: Required<OpenCounts> = {
    clientConnections: () => 0,
    tunnels: () => 0,
    eventStreams: () => 0,
    liveWindowBytes: () => 0,
  };

  constructor(
    readonly face: Face,
    options: { defaultMetrics?: boolean } = {},
  ) {
    const registers = [this.registry];
    const { verdicts, breaches, refusals, clientVerdicts } = this;
    new Counter({
      name: `${METRICS_PREFIX}exchanges_total`,
      help: 'Exchanges finished, by face and verdict (clean, broken, not judged)',
      labelNames: ['face', 'verdict', 'client'],
      registers,
      collect() {
        this.reset();
        for (const verdict of VERDICTS) this.inc({ face, verdict }, verdicts[verdict]);
        for (const { labels, count } of clientVerdicts.values()) this.inc({ face, ...labels }, count);
      },
    });
    new Counter({
      name: `${METRICS_PREFIX}breaches_total`,
      help: 'Rule breaches found in exchanges, by rule ID, severity and side',
      labelNames: ['rule', 'severity', 'side', 'client'],
      registers,
      collect() {
        this.reset();
        for (const { labels, count } of breaches.values()) this.inc(labels, count);
      },
    });
    this.registry.registerMetric(this.answerHistogram());
    new Counter({
      name: `${METRICS_PREFIX}refusals_total`,
      help: 'Connections and requests turned away, by reason',
      labelNames: ['reason'],
      registers,
      collect() {
        this.reset();
        for (const reason of REFUSALS) this.inc({ reason }, refusals[reason]);
      },
    });
    const recordingBytes = () => this.recordingBytes;
    new Counter({
      name: `${METRICS_PREFIX}recording_bytes_total`,
      help: 'Bytes of NDJSON lines handed to the recording',
      registers,
      collect() {
        this.reset();
        this.inc(recordingBytes());
      },
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
    this.recordingFailures.labels('write').inc(0);
    if (face === 'serve')
      for (const outcome of ['delivered', 'refused', 'no answer']) this.webhookTries.labels(outcome).inc(0);
    // The process's own: resident memory, open file descriptors, event-loop delay, garbage collection.
    // The delay is sampled by a timer of its own: at prom-client's default of every 10 ms its wake-ups
    // alone cost an idle proxy 8 ms of CPU a second, 5% of a proxied GET's at 2 000 a second. Every
    // 100 ms costs a tenth of that; a stall of 100 ms or more is always seen, a shorter one in
    // proportion to its length (nodejs_eventloop_lag_seconds, measured at each scrape, is unchanged).
    if (options.defaultMetrics !== false)
      collectDefaultMetrics({
        register: this.registry,
        prefix: METRICS_PREFIX,
        eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
      });
  }

  /** Where the gauges read what is open now. */
  reads(counts: OpenCounts): void {
    Object.assign(this.open, Object.fromEntries(Object.entries(counts).filter(([, read]) => read !== undefined)));
  }

  /** Count exchanges and breaches per client too (--clients-by), labelled through `label` (bounded). */
  labelClients(label: (client: string) => string): void {
    this.clientLabel = label;
  }

  /**
   * One finished exchange and the breaches found in it (rule IDs of the catalog only); with
   * labelClients, also under its client's bounded label (the exchanges of no client in the total alone).
   */
  exchange(
    verdict: ExchangeVerdict,
    breaches: readonly { rule: string; severity: Severity; side: Side }[],
    client?: string,
  ): void {
    const label = client !== undefined && this.clientLabel ? this.clientLabel(client) : undefined;
    if (label === undefined) this.verdicts[verdict] += 1;
    else {
      const key = `${label}\u0000${verdict}`;
      const counted = this.clientVerdicts.get(key);
      if (counted) counted.count += 1;
      else this.clientVerdicts.set(key, { labels: { client: label, verdict }, count: 1 });
    }
    for (const breach of breaches) {
      const key = `${breach.rule} ${breach.severity} ${breach.side}${label === undefined ? '' : `\u0000${label}`}`;
      const counted = this.breaches.get(key);
      if (counted) counted.count += 1;
      else
        this.breaches.set(key, {
          labels: {
            rule: breach.rule,
            severity: breach.severity,
            side: breach.side,
            ...(label === undefined ? {} : { client: label }),
          },
          count: 1,
        });
    }
  }

  /** How long the upstream (for serve: the service itself) took to begin its answer. */
  answered(method: string, url: string, base: string, headMs: number): void {
    const operation = answerOperation(method, url, base);
    let times = this.answers.get(operation);
    if (!times) {
      times = { buckets: ANSWER_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.answers.set(operation, times);
    }
    const seconds = headMs / 1000;
    times.sum += seconds;
    times.count += 1;
    for (let index = 0; index < ANSWER_BUCKETS.length; index += 1) {
      if (seconds <= (ANSWER_BUCKETS[index] as number)) {
        times.buckets[index] = (times.buckets[index] as number) + 1;
        break;
      }
    }
  }

  refused(reason: RefusalReason): void {
    this.refusals[reason] += 1;
  }

  recorded(bytes: number): void {
    this.recordingBytes += bytes;
  }

  /** The recording stopped being written (a full disk, a removed folder, a writer that cannot keep up). */
  recordingWriteFailed(reason: RecordingFailure | string): void {
    this.recordingFailures.labels(RECORDING_FAILURES.has(reason) ? reason : 'other').inc();
  }

  webhookTried(outcome: WebhookOutcome): void {
    this.webhookTries.labels(outcome).inc();
  }

  /** The answer-time histogram as prom-client's registry writes one, from the counts kept here. */
  private answerHistogram(): Metric {
    const name = `${METRICS_PREFIX}upstream_answer_seconds`;
    const help = "Time until the answer's head, by the interface's operation (other: anything else)";
    const answers = this.answers;
    const values = () =>
      [...answers].flatMap(([operation, times]) => {
        let cumulative = 0;
        return [
          ...ANSWER_BUCKETS.map((le, index) => {
            cumulative += times.buckets[index] as number;
            return { labels: { operation, le }, value: cumulative, metricName: `${name}_bucket` };
          }),
          { labels: { operation, le: '+Inf' }, value: times.count, metricName: `${name}_bucket` },
          { labels: { operation }, value: times.sum, metricName: `${name}_sum` },
          { labels: { operation }, value: times.count, metricName: `${name}_count` },
        ];
      });
    const metric = {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
      reset: () => answers.clear(),
    };
    return metric as unknown as Metric;
  }
}
