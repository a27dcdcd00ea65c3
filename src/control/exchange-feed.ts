import { keptCopy } from '../findings/kept-copy.js';
import type { Exchange, Violation } from '../validate/exchange.js';
import { ENTRY_WEIGHT, keptExchange, withoutText } from './kept-exchange.js';

// The one stream of judged exchanges that the control API, its event stream and the live page
// read, as the recorder reads it: each exchange arrives redacted as the recording holds it, gets a
// sequence number, and is kept in a bounded window (a count and a size of bodies), so that a burst
// of thousands neither grows memory without bound nor is lost to a reader that asks from where it
// left off, as long as it asks in time.

/** What a list shows of an exchange: enough to filter and mark it, nothing of its bodies. */
export interface FeedEntry {
  seq: number;
  at: string;
  method: string;
  url: string;
  status?: number;
  test?: string;
  /** From the request's start to the answer's end. */
  durationMs?: number;
  /** From the request's start to the answer's head. */
  headMs?: number;
  /** The bodies' sizes in bytes, as sent on the wire. */
  requestBytes?: number;
  responseBytes?: number;
  /** A TLS handshake the client refused (it does not trust the proxy's certificate): a row of its own, no exchange. */
  refusedHandshake?: RefusedHandshake;
  /** Judged by the rules (an exchange of the interface), or only passed through (orders, other paths). */
  judged: boolean;
  blocked?: boolean;
  error?: string;
  violations: Violation[];
}

/** What the proxy knows of a TLS handshake a client refused. */
export interface RefusedHandshake {
  /** The host the client asked for (SNI, or the CONNECT's authority). */
  host: string;
  /** The client's address, when known. */
  client?: string;
  /** Why, as the TLS alert or the error said it ("unknown ca", "certificate unknown" …). */
  reason: string;
}

export interface FeedItem {
  entry: FeedEntry;
  /** The exchange as recorded (redacted), its text bodies cut to what a page shows. */
  exchange: Exchange;
}

const DEFAULT_COUNT = 1000;
const DEFAULT_BYTES = 32 * 1024 * 1024;

/** Told of each exchange as it is kept: its entry, and that entry as JSON (made once for every listener). */
type Listener = (entry: FeedEntry, json: string) => void;

/** Memory shared with the rest of the process (the proxy's --memory-budget): the window is charged what it holds. */
export interface FeedBudget {
  take(bytes: number): boolean;
  hold(bytes: number): void;
  give(bytes: number): void;
}

export class ExchangeFeed {
  private readonly items: (FeedItem & { weight: number })[] = [];
  private bytes = 0;
  private seq = 0;
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly maxCount = DEFAULT_COUNT,
    private readonly maxBytes = DEFAULT_BYTES,
    private readonly budget?: FeedBudget,
  ) {}

  /** The newest sequence number given (0: none yet). */
  get last(): number {
    return this.seq;
  }

  /** The oldest sequence number still held. */
  get first(): number {
    return this.items[0]?.entry.seq ?? this.seq + 1;
  }

  /** A judged exchange, redacted as the recording holds it. */
  push(
    exchange: Exchange & { violations: Violation[]; blocked?: boolean },
    judged: boolean,
    test: string | undefined,
  ): FeedEntry {
    this.seq += 1;
    const entry: FeedEntry = {
      seq: this.seq,
      at: exchange.startedAt ?? new Date().toISOString(),
      method: exchange.request.method,
      url: exchange.request.url,
      judged,
      violations: exchange.violations,
    };
    if (exchange.response) entry.status = exchange.response.status;
    if (test !== undefined) entry.test = test;
    if (exchange.durationMs !== undefined) entry.durationMs = exchange.durationMs;
    if (exchange.headMs !== undefined) entry.headMs = exchange.headMs;
    entry.requestBytes = exchange.request.body?.size ?? 0;
    if (exchange.response) entry.responseBytes = exchange.response.body?.size ?? 0;
    if (exchange.blocked) entry.blocked = true;
    if (exchange.error) entry.error = exchange.error;
    // The entry shares the kept exchange's strings, but for the test's name.
    const entryWeight = ENTRY_WEIGHT + 2 * (test?.length ?? 0);
    let kept = keptExchange(exchange);
    if (this.budget && !this.budget.take(kept.weight + entryWeight)) {
      const held = kept.exchange;
      kept = keptExchange({
        ...held,
        request: { ...held.request, body: withoutText(held.request.body) },
        ...(held.response ? { response: { ...held.response, body: withoutText(held.response.body) } } : {}),
      });
      // Small, and counted: the budget may go over by it, and takes nothing more until it is back under.
      this.budget.hold(kept.weight + entryWeight);
    }
    // The entry holds what the kept exchange does: its findings and error are the copies.
    entry.violations = kept.exchange.violations ?? [];
    if (kept.exchange.error) entry.error = kept.exchange.error;
    this.hold({ entry, exchange: kept.exchange }, kept.weight + entryWeight);
    return entry;
  }

  /**
   * A TLS handshake a client refused: no exchange came of it, but a person debugging the client
   * sees it among the exchanges, in its place in time (the proxy's interception publishes it).
   */
  pushRefusedHandshake(refused: RefusedHandshake, at = new Date().toISOString()): FeedEntry {
    this.seq += 1;
    const error = `the client refused the TLS handshake for ${refused.host}: ${refused.reason}`;
    const url = `https://${refused.host}/`;
    const kept = keptCopy({
      entry: {
        seq: this.seq,
        at,
        method: 'CONNECT',
        url,
        judged: false,
        violations: [],
        refusedHandshake: { ...refused },
        error,
      } satisfies FeedEntry,
      exchange: { startedAt: at, request: { method: 'CONNECT', url, headers: {} }, error } satisfies Exchange,
    });
    this.budget?.hold(kept.weight);
    this.hold(kept.copy, kept.weight);
    return kept.copy.entry;
  }

  /** Keeps an item in the window (the newest `maxCount`, at most `maxBytes`) and tells the listeners. */
  private hold(item: FeedItem, weight: number): void {
    this.items.push({ ...item, weight });
    this.bytes += weight;
    while (this.items.length > this.maxCount || (this.bytes > this.maxBytes && this.items.length > 1)) {
      const oldest = this.items.shift() as FeedItem & { weight: number };
      this.bytes -= oldest.weight;
      this.budget?.give(oldest.weight);
    }
    if (this.listeners.size === 0) return;
    const json = JSON.stringify(item.entry);
    for (const listener of this.listeners) listener(item.entry, json);
  }

  /** Entries after sequence number `after`, oldest first, at most `limit`. */
  since(after: number, limit = this.maxCount): FeedEntry[] {
    const from = this.items.findIndex((item) => item.entry.seq > after);
    if (from < 0) return [];
    return this.items.slice(from, from + limit).map((item) => item.entry);
  }

  /** Every entry held, newest first. */
  newestFirst(): FeedEntry[] {
    return this.items.map((item) => item.entry).reverse();
  }

  /** Every item held, oldest first (the HAR download, the text search). */
  heldItems(): readonly FeedItem[] {
    return this.items;
  }

  item(seq: number): FeedItem | undefined {
    const index = seq - this.first;
    const found = this.items[index];
    return found?.entry.seq === seq ? found : this.items.find((item) => item.entry.seq === seq);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
