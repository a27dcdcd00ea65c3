import { keptCopy } from '../findings/kept-copy.js';
import type { Exchange, Violation } from '../validate/exchange.js';
import { ENTRY_WEIGHT, keptExchange, type WithFindings, withoutText } from './kept-exchange.js';
import { RingWindow } from './ring-window.js';

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

type HeldItem = FeedItem & { weight: number };

export class ExchangeFeed {
  private readonly items: RingWindow<HeldItem>;
  private bytes = 0;
  private seq = 0;
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly maxCount = DEFAULT_COUNT,
    private readonly maxBytes = DEFAULT_BYTES,
    private readonly budget?: FeedBudget,
  ) {
    this.items = new RingWindow(Math.max(1, maxCount));
  }

  /** The newest sequence number given (0: none yet). */
  get last(): number {
    return this.seq;
  }

  /** The oldest sequence number still held. */
  get first(): number {
    return this.items.at(0)?.entry.seq ?? this.seq + 1;
  }

  /** A judged exchange, redacted as the recording holds it. */
  push(
    exchange: WithFindings<Exchange> & { violations: Violation[]; blocked?: boolean },
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
    this.hold(entry, kept.exchange, kept.weight + entryWeight);
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
    this.hold(kept.copy.entry, kept.copy.exchange, kept.weight);
    return kept.copy.entry;
  }

  /** Keeps an item in the window (the newest `maxCount`, at most `maxBytes`) and tells the listeners. */
  private hold(entry: FeedEntry, exchange: Exchange, weight: number): void {
    const dropped = this.items.push({ entry, exchange, weight });
    if (dropped) this.drop(dropped);
    this.bytes += weight;
    while (this.bytes > this.maxBytes && this.items.length > 1) this.drop(this.items.shift() as HeldItem);
    if (this.listeners.size === 0) return;
    const json = JSON.stringify(entry);
    for (const listener of this.listeners) listener(entry, json);
  }

  private drop(oldest: HeldItem): void {
    this.bytes -= oldest.weight;
    this.budget?.give(oldest.weight);
  }

  /** Entries after sequence number `after`, oldest first, at most `limit`. */
  since(after: number, limit = this.maxCount): FeedEntry[] {
    const entries: FeedEntry[] = [];
    // Sequence numbers are consecutive in the window: the first one after `after` is found by subtraction.
    for (
      let index = Math.max(0, after + 1 - this.first);
      index < this.items.length && entries.length < limit;
      index += 1
    )
      entries.push((this.items.at(index) as HeldItem).entry);
    return entries;
  }

  /** Every entry held, newest first. */
  newestFirst(): FeedEntry[] {
    return this.items
      .toArray()
      .map((item) => item.entry)
      .reverse();
  }

  /** Every item held, oldest first (the HAR download, the text search). */
  heldItems(): readonly FeedItem[] {
    return this.items.toArray();
  }

  item(seq: number): FeedItem | undefined {
    const found = this.items.at(seq - this.first);
    return found?.entry.seq === seq ? found : undefined;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
