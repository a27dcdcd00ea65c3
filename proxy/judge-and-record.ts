// What the proxy does with each exchange once it has passed: judges it with the core, then records
// it, tallies it, puts it on the live page and the client test's verdict, and logs what broke.
// Apart from proxy-server.ts, which wires the session together, since these are the two steps
// every exchange takes, and the judgement must travel from one to the other.

import type { ClientIdentity } from '../src/control/client-identity.js';
import type { ExchangeFeed } from '../src/control/exchange-feed.js';
import type { TestVerdicts } from '../src/control/test-verdicts.js';
import { splitObservations } from '../src/findings/observations.js';
import type { OperationsLog } from '../src/operations/log.js';
import type { OperationsMetrics } from '../src/operations/metrics.js';
import type { SessionRedaction } from '../src/redaction/index.js';
import type { ClientTally } from '../src/validate/client-tally.js';
import type { Exchange } from '../src/validate/exchange.js';
import type { Judgement } from '../src/validate/index.js';
import { judgeTraffic, type TrafficJudgement, type TrafficState } from '../src/validate/traffic.js';
import type { TrafficLog } from './exchange-log.js';
import { describeViolations, type ProxyContext } from './proxy-context.js';
import type { RecordedExchange, Recorder } from './recorder.js';

export interface JudgeAndRecordOptions {
  state: TrafficState;
  session: SessionRedaction;
  /** Rule IDs whose violations are recorded, logged and named in answers (default: all). */
  selected?: Set<string> | undefined;
  traffic: TrafficLog;
  recorder: Recorder;
  feed: ExchangeFeed;
  tests: TestVerdicts;
  /** --clients-by: who each exchange's client is, and the tally keyed by client. */
  clients?: { identity: ClientIdentity; tally: ClientTally } | undefined;
  log: (line: string) => void;
  events: OperationsLog;
  metrics?: OperationsMetrics | undefined;
  /** The target's base, the answer-time histogram's operations are read under. */
  targetBase: string;
}

/** Why the proxy refused a request, from the body it answered with. */
function refusalReason(status: number, body: string): string {
  let message = body;
  try {
    message = (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    // A plain message, or no body at all.
  }
  message = message.replace(/^print-conformance proxy: /, '');
  if (message) return message;
  return status === 405 ? 'a CONNECT request (the proxy is no forward proxy)' : 'an upgrade request (not forwarded)';
}

/** Method and path of an exchange for the log: never the query, which may carry a token. */
function requestLine(exchange: Exchange): string {
  return `${exchange.request.method} ${new URL(exchange.request.url).pathname}`;
}

/** The context's judge, record and refused steps for one proxy session. */
export function judgeAndRecord(options: JudgeAndRecordOptions): Pick<ProxyContext, 'judge' | 'record' | 'refused'> {
  const { state, session, traffic, recorder, feed, tests, clients, log, events, metrics } = options;
  const redact = session.exchange;
  // The tally takes each exchange's judgement from its one judging on the way through. Every
  // exchange is recorded in the same turn as its last judging, so the last judgement made is its
  // own (a request blocked in enforce mode is judged as a preview, another object, just before).
  // Kept so rather than in a WeakMap, which cost more per exchange than the tally itself.
  let lastJudged: Exchange | undefined;
  let lastJudgement: Judgement | undefined;
  let lastScope: TrafficJudgement['scope'] | undefined;

  const judge: ProxyContext['judge'] = (exchange) => {
    lastJudged = exchange;
    lastJudgement = undefined;
    lastScope = undefined;
    try {
      const sorted = judgeTraffic(exchange, state);
      lastScope = sorted.scope;
      const judged = sorted.judgement;
      // Order answers and what is not the interface are judged by no rule.
      if (!judged) return [];
      // Redacted where they are made: whatever quotes them (the violations header, the log,
      // the summaries, enforce mode's answer, the recording) quotes them redacted.
      judged.violations = session.findings(judged.violations);
      lastJudgement = judged;
      const { violations } = judged;
      return options.selected ? violations.filter((v) => options.selected?.has(v.rule)) : violations;
    } catch (error) {
      // Judging runs in the middle of forwarding: whatever goes wrong in it must not take the
      // proxy down or lose the exchange. It is forwarded and recorded as not judged.
      const message = `print-conformance could not judge this exchange: ${(error as Error).message}`;
      exchange.error = exchange.error ?? message;
      log(`${requestLine(exchange)}: ${session.text(message)}`);
      return [];
    }
  };

  const recordExchange: ProxyContext['record'] = (exchange, started) => {
    exchange.durationMs = Math.round(performance.now() - started);
    const found = exchange.violations;
    const { violations: shown, observations } = splitObservations(found);
    const own = lastJudged === exchange || exchange.blocked;
    const judged = Boolean(own && lastJudgement !== undefined);
    traffic.record(exchange, own ? lastJudgement : undefined, own ? lastScope : undefined);
    lastJudged = undefined;
    lastJudgement = undefined;
    lastScope = undefined;
    // The exchange ends here, and becomes what the recording holds (observations apart) in place:
    // a copy of it cost more than all the rest of this step.
    const recorded: RecordedExchange = exchange;
    recorded.violations = shown;
    recorded.observations = observations;
    // A token call names its client, and the token it hands out is that client's: read before redaction hides both.
    if (clients) {
      clients.identity.learn(recorded);
      if (recorded.client !== undefined) clients.tally.record(recorded.client, judged, found);
    }
    const redacted = redact(recorded);
    // The live page and the control API read what the recording holds, findings and all.
    feed.push(redacted, judged, exchange.test, recorder.record(redacted));
    if (exchange.test !== undefined) tests.record(exchange.test, judged, found);
    if (metrics) {
      metrics.exchange(judged ? (shown.length > 0 ? 'broken' : 'clean') : 'not judged', shown, recorded.client);
      if (exchange.blocked) metrics.refused('enforce');
      else if (exchange.response && exchange.headMs !== undefined)
        metrics.answered(exchange.request.method, exchange.request.url, options.targetBase, exchange.headMs);
    }
    if (shown.length > 0 || exchange.error) {
      const status = exchange.response?.status ?? redacted.error;
      events.exchangeBroken(
        `${requestLine(exchange)} → ${status}${shown.length ? `  ${describeViolations(shown)}` : ''}`,
        {
          method: exchange.request.method,
          path: new URL(exchange.request.url).pathname,
          status,
          rules: [...new Set(shown.map((v) => v.rule))],
        },
      );
    }
  };

  return {
    judge,
    // Recording runs at the end of forwarding, some of it once a digest comes back from the worker
    // thread (a promise): whatever goes wrong in it loses that exchange's record, never the proxy.
    record: (exchange, started) => {
      try {
        recordExchange(exchange, started);
      } catch (error) {
        log(`print-conformance could not record ${requestLine(exchange)}: ${session.text((error as Error).message)}`);
      }
    },
    refused: (status, body) => traffic.refused(status, refusalReason(status, body)),
  };
}
