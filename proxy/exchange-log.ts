import { summariseExchange } from '../src/http/exchange-summary.js';
import { redactText } from '../src/redaction/index.js';
import type { Exchange } from '../src/validate/exchange.js';
import type { Judgement } from '../src/validate/index.js';
import type { Scope } from '../src/validate/scope.js';
import { Tally } from '../src/validate/tally.js';
import type { RecordedExchange } from './recorder.js';

// What a proxy session saw, for its verdicts and summaries: every judged exchange in a Tally (the
// same evidence and breaches `run` and `validate` count), and apart from it the exchanges the
// target did not answer (the proxy answered them itself: 502, 504, 503, 408, refusals), by
// reason. A session in which the target answered nothing shows nothing about the service.

/** Reasons kept apart; a session with more distinct ones counts the rest together. */
const KEPT_REASONS = 20;
const OTHER_REASONS = 'other reasons';

export class TrafficLog {
  readonly tally: Tally;
  /** Everything the proxy was asked, answered by the target or not. */
  seen = 0;
  /** Exchanges whose answer came from the target. */
  reached = 0;
  /** Requests the proxy blocked itself (--mode enforce): judged, and deliberately not forwarded. */
  blocked = 0;
  /** Exchanges the core could not judge (recorded as such). */
  unjudged = 0;
  /** Why exchanges got no answer from the target: "502 the target … cannot be reached (ECONNREFUSED)" → count. */
  readonly notReached = new Map<string, number>();
  /** Tunnels and requests for other hosts, passed on unjudged and unrecorded: "host:port" → count. */
  readonly passedOnHosts = new Map<string, number>();
  /** TLS handshakes clients refused on intercepted hosts: "host:port (alert)" → count. */
  readonly refusedHandshakes = new Map<string, number>();

  /**
   * @param redact the session's redaction of exchanges; @param mask that of the proxy's own texts.
   * Findings come redacted where they were made (src/redaction/session.ts).
   */
  constructor(
    redact: (exchange: Exchange) => Exchange,
    credentialHeaders: readonly string[],
    private readonly mask: (text: string) => string = (text) => redactText(text),
  ) {
    // Summaries are made only for the few breaches kept per rule, redacted as the recording is.
    this.tally = new Tally({
      summarise: (exchange, violation) => summariseExchange(redact(exchange), [], credentialHeaders, violation),
    });
  }

  notReachedCount(): number {
    let count = 0;
    for (const n of this.notReached.values()) count += n;
    return count;
  }

  /**
   * One finished exchange with its judgement: none when judging failed, or when `scope` says it is
   * not judged (an order answer, or what is not the interface, counted apart).
   */
  record(exchange: RecordedExchange, judged: Judgement | undefined, scope?: Scope): void {
    this.seen += 1;
    if (scope?.kind === 'outside') this.tally.outside(scope.reason);
    else if (scope?.kind === 'order') this.tally.order();
    // Its findings were redacted as they were made (src/redaction/session.ts).
    else if (judged) this.tally.record(exchange, judged);
    else this.unjudged += 1;
    if (exchange.blocked) this.blocked += 1;
    else if (exchange.response) this.reached += 1;
    else {
      const status = exchange.proxyStatus === undefined ? '' : `${exchange.proxyStatus} `;
      this.count(`${status}${this.mask(exchange.error ?? 'no answer')}`);
    }
  }

  /** A tunnel or a request for a host that is not the interface's, passed on as it came. */
  passedOn(authority: string): void {
    const key = this.passedOnHosts.has(authority) || this.passedOnHosts.size < KEPT_REASONS ? authority : 'other hosts';
    this.passedOnHosts.set(key, (this.passedOnHosts.get(key) ?? 0) + 1);
  }

  /** The hosts passed on, most used first, as "3× example.org:443". */
  passedOnLines(): string[] {
    return [...this.passedOnHosts]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([host, count]) => `${count}× ${host}`);
  }

  /** A TLS handshake a client refused; true the first time for this host and alert. */
  handshakeRefused(key: string): boolean {
    const kept = this.refusedHandshakes.has(key) || this.refusedHandshakes.size < KEPT_REASONS ? key : 'other hosts';
    const before = this.refusedHandshakes.get(kept) ?? 0;
    this.refusedHandshakes.set(kept, before + 1);
    return before === 0;
  }

  refusedHandshakeCount(): number {
    let count = 0;
    for (const n of this.refusedHandshakes.values()) count += n;
    return count;
  }

  /** The refused handshakes, most frequent first, as "3× test.printapi.nl:443 (unknown ca)". */
  refusedHandshakeLines(): string[] {
    return [...this.refusedHandshakes]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([key, count]) => `${count}× ${key}`);
  }

  /** A request (or connection) the proxy turned away before any exchange began. */
  refused(status: number, reason: string): void {
    this.seen += 1;
    this.count(`${status} ${reason}`);
  }

  private count(reason: string): void {
    const key = this.notReached.has(reason) || this.notReached.size < KEPT_REASONS ? reason : OTHER_REASONS;
    this.notReached.set(key, (this.notReached.get(key) ?? 0) + 1);
  }

  /** The reasons, most frequent first, as "3× 502 the target … cannot be reached". */
  notReachedLines(): string[] {
    return [...this.notReached]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([reason, count]) => `${count}× ${reason}`);
  }

  /** One line for the periodic summary: how much went through, and which rules broke how often. */
  progress(): string {
    const broken = Object.entries(this.tally.data.broken)
      .map(([rule, formats]) => [rule, Object.values(formats ?? {}).reduce((sum, n) => sum + (n ?? 0), 0)] as const)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const notReached = this.notReachedCount();
    let line = `so far: ${this.seen} exchanges, ${this.reached} answered by the target`;
    if (notReached > 0) line += `, ${notReached} by the proxy itself`;
    if (broken.length === 0) return `${line}; no rule broken`;
    const shown = broken.slice(0, 5).map(([rule, count]) => `${rule} ×${count}`);
    if (broken.length > 5) shown.push(`${broken.length - 5} more`);
    return `${line}; broken: ${shown.join(', ')}`;
  }
}
