import { ruleById } from '../contract/rules.js';
import { redactText } from '../http/redact.js';
import { type Outgoing, send } from '../http/send.js';
import { summariseExchange } from '../report/exchange-summary.js';
import type { Exchange, Violation } from '../validate/exchange.js';
import { type Expected, expectAnswer } from '../validate/expectations.js';
import { CheckoutState, validateExchange } from '../validate/index.js';
import type { ExchangeSummary, Format, SuiteConfig } from './config.js';

// One pass of probes against a service. Every exchange goes through the core; what it finds is
// kept per rule and format, with the exchange that showed it, for the suite's verdicts.

export interface Finding {
  rule: string;
  format: Format | 'any';
  message: string;
  exchange: ExchangeSummary;
}

export interface RecordOptions {
  format: Format | 'any';
  /** A rule this probe expects the service to accept or refuse the request under. */
  expect?: { rule: string; answer: Expected; what: string };
  /** Rules whose core verdicts this probe leaves to its expectation (so nothing is said twice). */
  ignore?: string[];
}

export class ProbeRun {
  readonly findings: Finding[] = [];
  readonly exchanges: Exchange[] = [];
  readonly observations: Record<string, unknown> = {};
  private readonly state = new CheckoutState();
  private sent = 0;

  constructor(
    readonly config: SuiteConfig,
    private readonly progress: (line: string) => void = () => {},
  ) {}

  summarise(exchange: Exchange, violation?: Violation): ExchangeSummary {
    return summariseExchange(exchange, this.config.secrets, this.config.credentialHeaders, violation);
  }

  /** Sends a request with the configured headers and judges the exchange. */
  async probe(outgoing: Outgoing, options: RecordOptions, withCredentials = true): Promise<Exchange> {
    const headers = { ...(withCredentials ? this.config.headers : this.withoutCredentials()), ...outgoing.headers };
    const exchange = await send({ ...outgoing, headers }, undefined, this.config.timeoutMs);
    this.sent += 1;
    this.progress(
      `  ${String(this.sent).padStart(3)} ${outgoing.method} ${redactText(outgoing.url, this.config.secrets)} → ${exchange.response?.status ?? exchange.error}`,
    );
    this.record(exchange, options);
    return exchange;
  }

  private withoutCredentials(): Record<string, string> {
    const drop = new Set(this.config.credentialHeaders.map((name) => name.toLowerCase()));
    return Object.fromEntries(Object.entries(this.config.headers).filter(([name]) => !drop.has(name.toLowerCase())));
  }

  record(exchange: Exchange, options: RecordOptions): void {
    this.exchanges.push(exchange);
    // The suite is the client: what it sends on purpose (bad lengths, bad types) is not judged.
    const violations: Violation[] = validateExchange(exchange, this.state).filter(
      (v) => v.side === 'response' && !options.ignore?.includes(v.rule),
    );
    if (options.expect) {
      const { rule, answer, what } = options.expect;
      const unmet = expectAnswer(exchange, rule, answer, what);
      if (unmet) violations.push(unmet);
    }
    if (!exchange.response && !options.expect) {
      violations.push({
        rule: 'http.no-server-error',
        severity: ruleById('http.no-server-error').severity,
        side: 'response',
        message: `no answer: ${exchange.error}`,
      });
    }
    for (const violation of violations) {
      this.findings.push({
        rule: violation.rule,
        format: options.format,
        message: redactText(violation.message, this.config.secrets),
        exchange: this.summarise(exchange, violation),
      });
    }
  }

  /** The observations of one observe.* rule, made on first use. */
  observationsOf(rule: string): Record<string, unknown> {
    if (!this.observations[rule]) this.observations[rule] = {};
    return this.observations[rule] as Record<string, unknown>;
  }

  observe(rule: string, key: string, value: unknown): void {
    this.observationsOf(rule)[key] = value;
  }
}
