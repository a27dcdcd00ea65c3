import { ownText } from '../findings/kept-copy.js';
import type { ClientTestFailure, ClientVerdict } from '../findings/types.js';
import type { Violation } from './exchange.js';

// The tally again, keyed by client team (--clients-by): per client, its exchanges and the rules they
// broke, with the first few messages. The proxy keeps one as it goes; validate's judges keep one each
// and merge them, as they merge their tallies. Plain data (Maps of plain objects), so that a worker
// thread can post it.

/** Messages kept per rule and client. */
const MESSAGES_KEPT = 5;
/** Clients kept apart; past it, new ones are counted together (a sandbox of this many teams is rare). */
export const CLIENTS_KEPT = 10_000;
/** Where clients past CLIENTS_KEPT are counted. */
export const OTHER_CLIENTS = 'other';
/** The client of an exchange whose credentials name none the proxy saw handed out. */
export const UNKNOWN_CLIENT = 'unknown';

/** How an exchange's client team is told (--clients-by). */
export type ClientsBy = { kind: 'none' } | { kind: 'oauth' } | { kind: 'basic' } | { kind: 'header'; name: string };

/** --clients-by as written: `oauth`, `basic`, `header:NAME` or `none`. */
export function clientsByName(by: ClientsBy): string {
  return by.kind === 'header' ? `header:${by.name}` : by.kind;
}

/** Client ids are shown, in reports and on the page: one longer than this is cut. */
export const CLIENT_ID_LIMIT = 200;

/** What a value says of the client: trimmed, on one line, cut to a length fit to show; undefined when empty. */
export function clientIdOf(value: string | undefined): string | undefined {
  const id = value
    ?.replace(/\p{Cc}+/gu, ' ')
    .trim()
    .slice(0, CLIENT_ID_LIMIT);
  return id ? id : undefined;
}

export interface ClientCount {
  exchanges: number;
  judged: number;
  rules: Map<string, ClientTestFailure>;
}

export type ClientTallyData = Map<string, ClientCount>;

export class ClientTally {
  readonly data: ClientTallyData = new Map();

  /** The count a client's exchanges go to (past CLIENTS_KEPT clients, the one of OTHER_CLIENTS). */
  countOf(client: string): ClientCount {
    let count = this.data.get(client);
    if (!count) {
      const key = this.data.size < CLIENTS_KEPT ? client : OTHER_CLIENTS;
      count = this.data.get(key);
      if (!count) {
        count = { exchanges: 0, judged: 0, rules: new Map() };
        this.data.set(key, count);
      }
    }
    return count;
  }

  /** One exchange of a client, with the findings it was judged to make (observations are not counted). */
  record(client: string, judged: boolean, violations: readonly Violation[]): void {
    const count = this.countOf(client);
    count.exchanges += 1;
    if (judged) count.judged += 1;
    for (const violation of violations) {
      if (violation.severity === 'observe') continue;
      let failure = count.rules.get(violation.rule);
      if (!failure) {
        failure = { rule: violation.rule, severity: violation.severity, count: 0, messages: [] };
        count.rules.set(violation.rule, failure);
      }
      failure.count += 1;
      // Made only while there is room: a rule broken on every request costs a count, not a string.
      if (failure.messages.length >= MESSAGES_KEPT) continue;
      const message = `${violation.side}: ${violation.message}`;
      // Kept for the session: text of its own, not a view of the body a message may quote.
      if (!failure.messages.includes(message))
        failure.messages.push(ownText(message.length > 1000 ? `${message.slice(0, 1000)}…` : message));
    }
  }
}

/** Tallies of judges that saw disjoint parts of the same traffic, as if one judge saw them all. */
export function mergeClientTallies(parts: readonly (ClientTallyData | undefined)[]): ClientTallyData {
  const merged = new ClientTally();
  for (const part of parts) {
    for (const [client, from] of part ?? []) {
      const into = merged.countOf(client);
      into.exchanges += from.exchanges;
      into.judged += from.judged;
      for (const [rule, failure] of from.rules) {
        const kept = into.rules.get(rule);
        if (!kept) {
          into.rules.set(rule, { ...failure, messages: [...failure.messages] });
          continue;
        }
        kept.count += failure.count;
        for (const message of failure.messages)
          if (kept.messages.length < MESSAGES_KEPT && !kept.messages.includes(message)) kept.messages.push(message);
      }
    }
  }
  return merged.data;
}

/** One client's verdict: failed when a must rule (with strict, a should rule too) broke in its exchanges. */
export function clientVerdict(
  client: string,
  count: ClientCount,
  strict: boolean,
  selected?: ReadonlySet<string>,
): ClientVerdict {
  const all = [...count.rules.values()]
    .filter((failure) => !selected || selected.has(failure.rule))
    .sort((a, b) => a.rule.localeCompare(b.rule));
  const failed = all.filter((failure) => failure.severity === 'must' || (strict && failure.severity === 'should'));
  const warnings = all.filter((failure) => !failed.includes(failure));
  return { client, exchanges: count.exchanges, judged: count.judged, passed: failed.length === 0, failed, warnings };
}

/** Every client's verdict, in the order first seen; `selected`: only these rules count (--only, --skip). */
export function clientVerdicts(
  data: ClientTallyData,
  strict: boolean,
  selected?: ReadonlySet<string>,
): ClientVerdict[] {
  return [...data].map(([client, count]) => clientVerdict(client, count, strict, selected));
}
