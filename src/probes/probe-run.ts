import { type RuleId, ruleById } from '../contract/rules.js';
import type { ExchangeSummary } from '../findings/types.js';
import { summariseExchange } from '../http/exchange-summary.js';
import { type Outgoing, send } from '../http/send.js';
import { redactText } from '../redaction/index.js';
import type { Exchange, Violation } from '../validate/exchange.js';
import { type Expected, expectAnswer } from '../validate/expectations.js';
import { CheckoutState, judgeExchange } from '../validate/index.js';
import { PROBE_HEADER, REFUSAL_PROBE } from '../validate/probe-refusal.js';
import { Tally } from '../validate/tally.js';
import type { Format, SuiteConfig } from './config.js';

// One pass of probes against a service. Every exchange goes through the core into one tally: what
// each answer could have broken (evidence) and what it broke, in the probe's format.

export interface RecordOptions {
  format: Format | 'any';
  /** A rule this probe expects the service to accept or refuse the request under. */
  expect?: { rule: RuleId; answer: Expected; what: string };
  /** Rules whose core verdicts this probe leaves to its expectation (so nothing is said twice). */
  ignore?: RuleId[];
  /**
   * A refusal (4xx) the description allows: recorded in the service profile under this heading,
   * and the expectation judged only when the request was accepted.
   */
  refusalObserved?: string;
  /** A request sent to be refused (a malformed body, an unknown code) that no rule's expectation names. */
  refusalMeant?: boolean;
  /** A request sent to see what the service answers (an observation), whatever it answers. */
  observation?: boolean;
}

/** How much of the probing the progress tells: each phase's line always, each request's with `requests`. */
export interface ProgressDetail {
  requests: boolean;
}

/** Whether a request was sent to be refused: a refusal is then its expected answer, not a problem. */
function refusalAskedFor(options: RecordOptions): boolean {
  return (
    options.expect?.answer === 'rejected' || options.refusalMeant === true || options.refusalObserved !== undefined
  );
}

/**
 * Rules the core judges a refusal by in traffic (a sound set-up refused), which the suite judges
 * by what each probe expects instead: it knows why it sent what it sent.
 */
const REFUSALS_JUDGED_BY_PROBES = new Set<RuleId>([
  'format.xml-request',
  'format.json-request',
  'checkout.return-url.length',
]);

export class ProbeRun {
  readonly tally = new Tally({ summarise: (exchange, violation) => this.summarise(exchange, violation) });
  readonly exchanges: Exchange[] = [];
  private readonly observations = new Map<RuleId, Record<string, unknown>>();
  private readonly state = new CheckoutState();
  private sent = 0;
  /** Refusals of requests sent to be refused: counted apart, so that nobody reads them as trouble. */
  private refusedAsMeant = 0;

  constructor(
    readonly config: SuiteConfig,
    readonly progress: (line: string) => void = () => {},
    private readonly told: ProgressDetail = { requests: false },
  ) {}

  /** Runs one group of probes and tells it in one line: its requests, and how many were refused as meant. */
  async phase(name: string, probes: () => Promise<void>): Promise<void> {
    const [sent, refused] = [this.sent, this.refusedAsMeant];
    if (this.told.requests) this.progress(name);
    await probes();
    const requests = this.sent - sent;
    const meant = this.refusedAsMeant - refused;
    const refusals = meant > 0 ? `; ${meant} refused, as the probes meant` : '';
    if (!this.told.requests)
      this.progress(`${name.padEnd(16)} ${requests} request${requests === 1 ? '' : 's'}${refusals}`);
  }

  summarise(exchange: Exchange, violation?: Violation): ExchangeSummary {
    return summariseExchange(exchange, this.config.secrets, this.config.credentialHeaders, violation);
  }

  /** Sends a request with the configured headers and judges the exchange. */
  async probe(outgoing: Outgoing, options: RecordOptions, withCredentials = true): Promise<Exchange> {
    // Marked, so that a proxy or validate the suite's traffic goes through does not hold it against the suite.
    const marked = refusalAskedFor(options)
      ? { ...outgoing, headers: { ...outgoing.headers, [PROBE_HEADER]: REFUSAL_PROBE } }
      : outgoing;
    const exchange = await this.send(marked, withCredentials);
    this.record(exchange, options);
    return exchange;
  }

  /**
   * Sends a request with the configured headers, for a probe that records it later (requests sent
   * at once), or that frames it its own way (`sender`).
   */
  async send(
    outgoing: Outgoing,
    withCredentials = true,
    sender: (outgoing: Outgoing, timeoutMs: number) => Promise<Exchange> = (o, t) => send(o, undefined, t),
  ): Promise<Exchange> {
    const headers = { ...(withCredentials ? this.config.headers : this.withoutCredentials()), ...outgoing.headers };
    const exchange = await sender({ ...outgoing, headers }, this.config.timeoutMs);
    this.sent += 1;
    return exchange;
  }

  private withoutCredentials(): Record<string, string> {
    const drop = new Set(this.config.credentialHeaders.map((name) => name.toLowerCase()));
    return Object.fromEntries(Object.entries(this.config.headers).filter(([name]) => !drop.has(name.toLowerCase())));
  }

  record(exchange: Exchange, options: RecordOptions): void {
    this.exchanges.push(exchange);
    // Told as it is judged: a probe's deliberate refusal is marked as meant.
    const status = exchange.response?.status;
    const asMeant = status !== undefined && status >= 400 && status < 500 && refusalAskedFor(options);
    if (asMeant) this.refusedAsMeant += 1;
    if (this.told.requests)
      this.progress(
        `  ${String(this.exchanges.length).padStart(3)} ${exchange.request.method} ${redactText(exchange.request.url, this.config.secrets)} → ${status ?? exchange.error}${asMeant ? ' (refused, as meant)' : options.observation ? ' (observed)' : ''}`,
      );
    const judged = judgeExchange(exchange, this.state);
    const ignored = new Set(options.ignore);
    if ((exchange.response?.status ?? 0) >= 400) for (const rule of REFUSALS_JUDGED_BY_PROBES) ignored.add(rule);
    // The suite is the client: what it sends on purpose (bad lengths, bad types) is neither judged
    // nor evidence; only the service's answers are.
    const keep = (item: { side: string; rule: RuleId }) => item.side === 'response' && !ignored.has(item.rule);
    const violations: Violation[] = judged.violations
      .filter(keep)
      .map((v) => ({ ...v, message: redactText(v.message, this.config.secrets) }));
    if (!exchange.response && !options.expect) {
      violations.push({
        rule: 'http.no-server-error',
        severity: ruleById('http.no-server-error').severity,
        side: 'response',
        message: `no answer: ${exchange.error}`,
      });
    }
    const format = options.format === 'any' ? undefined : options.format;
    this.tally.record(exchange, { ...judged, violations, tested: judged.tested.filter(keep) }, { format });
    if (options.refusalObserved !== undefined && status !== undefined && status >= 400 && status < 500) {
      const seen = this.observationsOf('observe.status-codes');
      const before = seen[options.refusalObserved];
      seen[options.refusalObserved] = [...new Set([...(Array.isArray(before) ? before : []), String(status)])];
      return;
    }
    if (options.expect) {
      const { rule, answer, what } = options.expect;
      const unmet = expectAnswer(exchange, rule, answer, what);
      this.tally.expected(exchange, rule, options.format, unmet);
    }
  }

  /** The observations of one observe.* rule, made on first use. */
  observationsOf(rule: RuleId): Record<string, unknown> {
    let observed = this.observations.get(rule);
    if (!observed) {
      observed = {};
      this.observations.set(rule, observed);
      this.tally.observe(rule, observed);
    }
    return observed;
  }

  observe(rule: RuleId, key: string, value: unknown): void {
    this.observationsOf(rule)[key] = value;
  }
}
