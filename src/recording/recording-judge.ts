import type { ExchangeKind } from '../contract/exchange-facts.js';
import type { LineRef } from '../findings/types.js';
import { summariseExchange } from '../http/exchange-summary.js';
import { findingRedactor, redactText } from '../redaction/index.js';
import {
  ClientTally,
  type ClientTallyData,
  clientIdOf,
  mergeClientTallies,
  UNKNOWN_CLIENT,
} from '../validate/client-tally.js';
import type { Exchange } from '../validate/exchange.js';
import { answersOnly, isRefusalProbe } from '../validate/probe-refusal.js';
import { Tally, type TallyData } from '../validate/tally.js';
import { inKeyOrder, mergeTallies } from '../validate/tally-merge.js';
import { judgeTraffic, TrafficState } from '../validate/traffic.js';
import { flawOfRecordedExchange } from './exchange-shape.js';
import { withRecordedFindings } from './recorded-findings.js';

// Judges recorded exchanges one line at a time into a tally: per rule, the exchanges that could have
// broken it, those that did, and the first few of those. Traffic is judged on both sides: a client
// breaking a rule is as much a finding as a service. The same judge runs in-process or in a worker.

export type { LineRef };

export interface LineWarning {
  at: LineRef;
  message: string;
}

export interface JudgeResult {
  tally: TallyData;
  warnings: LineWarning[];
  /** The tally keyed by client, of the exchanges whose line names one (proxy --clients-by). */
  clients: ClientTallyData;
}

export class RecordingJudge {
  private readonly state: TrafficState;
  private readonly tally = new Tally({
    summarise: (exchange, violation) => summariseExchange(exchange, [], [], violation),
  });
  private readonly warnings: LineWarning[] = [];
  private readonly clients = new ClientTally();
  private readonly redactFindings = findingRedactor();

  /** `base`: the service's base URL (validate --base-url); learnt from the traffic without it. */
  constructor(base?: string) {
    this.state = new TrafficState(base);
  }

  /** A line or entry skipped before it reached the judge (an unreadable HAR entry). */
  warn(message: string, at: LineRef): void {
    this.warnings.push({ at, message });
  }

  /** An exchange that is not the interface, counted apart unjudged (a replay does not send it again). */
  countOutside(reason: string): void {
    this.tally.outside(reason);
  }

  /** An exchange of the interface a replay could not send again (see Tally.notSent). */
  notSent(kind: Exclude<ExchangeKind, 'other'>, format: 'json' | 'xml' | undefined): void {
    this.tally.notSent(kind, format);
  }

  /** `learnOnly`: an order answer another judge counts; this one only learns the URLs it gave. */
  judgeLine(text: string, at: LineRef, learnOnly = false): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.warn(`line ${at.line} is not JSON (cut off?); skipped`, at);
      return;
    }
    const flaw = flawOfRecordedExchange(value);
    if (flaw) {
      this.warn(`line ${at.line} is not a recorded exchange: ${flaw}; skipped`, at);
      return;
    }
    this.judge(value as Exchange, at, learnOnly);
  }

  judge(exchange: Exchange, at: LineRef, learnOnly = false): void {
    try {
      const sorted = judgeTraffic(exchange, this.state);
      if (learnOnly) return;
      if (sorted.scope.kind === 'order') this.tally.order();
      if (sorted.scope.kind === 'outside') this.tally.outside(sorted.scope.reason);
      const recorded = sorted.judgement
        ? withRecordedFindings(exchange, (exchange as { violations?: unknown }).violations, sorted.judgement)
        : undefined;
      // The client the proxy named on the line (--clients-by); a line naming none is no one's.
      // Read as untrusted as the rest of the line: on one line, cut to a length fit to show.
      const named = (exchange as { client?: unknown }).client;
      const client = typeof named === 'string' ? (clientIdOf(named) ?? UNKNOWN_CLIENT) : undefined;
      if (!recorded) {
        if (client !== undefined) this.clients.record(client, false, []);
        return;
      }
      // The suite's own refusals: what the recording says of their requests is not taken either.
      const judged = isRefusalProbe(exchange) ? answersOnly(recorded) : recorded;
      // Messages quote what was sent (a ReturnUrl, the start of a broken body): redacted as the
      // proxy redacts them where they are made (the same few messages come again and again).
      const violations = this.redactFindings(judged.violations);
      this.tally.record(
        exchange,
        { violations, tested: judged.tested, facts: judged.facts, read: judged.read },
        { at },
      );
      if (client !== undefined) this.clients.record(client, true, violations);
    } catch (error) {
      // One exchange the core cannot judge (a recording of the wrong shape, say) must not cost the
      // verdict on all the others: it is skipped with a warning, like a line that does not parse.
      this.warn(`line ${at.line} could not be judged: ${redactText((error as Error).message)}`, at);
    }
  }

  finish(): JudgeResult {
    return { tally: inKeyOrder(this.tally.data), warnings: this.warnings, clients: this.clients.data };
  }
}

const byPlace = (a: { at: LineRef }, b: { at: LineRef }) => a.at.file - b.at.file || a.at.line - b.at.line;

/** Results of judges that saw disjoint parts of the same recordings, as if one judge saw them all. */
export function mergeJudgeResults(parts: JudgeResult[]): JudgeResult {
  return {
    tally: mergeTallies(parts.map((part) => part.tally)),
    warnings: parts.flatMap((part) => part.warnings).sort(byPlace),
    clients: mergeClientTallies(parts.map((part) => part.clients)),
  };
}
