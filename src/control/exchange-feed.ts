import { keptCopy } from '../findings/kept-copy.js';
import type { Exchange, Violation } from '../validate/exchange.js';
import {
  bodilessLine,
  findingsOf,
  keptLine,
  RECORD_WEIGHT,
  shownExchange,
  type WithFindings,
} from './kept-exchange.js';
import { LineStore, type StoredLine } from './line-store.js';
import { RingWindow } from './ring-window.js';

// The one stream of judged exchanges that the control API, its event stream and the live page
// read, as the recorder reads it: each exchange arrives redacted as the recording holds it, gets a
// sequence number, and is kept in a bounded window (a count and a size of bodies), so that a burst
// of thousands neither grows memory without bound nor is lost to a reader that asks from where it
// left off, as long as it asks in time. It holds each exchange as a line of JSON (kept-exchange.ts)
// and builds its entry and exchange again when they are read.

/** What a list shows of an exchange: enough to filter and mark it, nothing of its bodies. */
export interface FeedEntry {
  seq: number;
  at: string;
  method: string;
  url: string;
  status?: number;
  test?: string;
  /** The client team it belongs to (--clients-by). */
  client?: string;
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
  /** The exchange as recorded (redacted), all its findings as violations, its text bodies cut to what a page shows. */
  exchange: WithFindings<Exchange>;
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

/** What the window holds of an exchange: its line, and what the line does not say. */
interface Held {
  line: StoredLine;
  judged: boolean;
  weight: number;
  test: string | undefined;
  handshake: RefusedHandshake | undefined;
}

/** The entry of an exchange, from the exchange itself as pushed or as read again from its line. */
function entryOf(seq: number, held: Omit<Held, 'line' | 'weight'>, exchange: WithFindings<Exchange>): FeedEntry {
  const entry: FeedEntry = {
    seq,
    at: exchange.startedAt ?? '',
    method: exchange.request.method,
    url: exchange.request.url,
    judged: held.judged,
    violations: findingsOf(exchange),
  };
  if (held.handshake) entry.refusedHandshake = held.handshake;
  else {
    if (exchange.response) entry.status = exchange.response.status;
    if (held.test !== undefined) entry.test = held.test;
    const { client } = exchange as { client?: unknown };
    if (typeof client === 'string') entry.client = client;
    if (exchange.durationMs !== undefined) entry.durationMs = exchange.durationMs;
    if (exchange.headMs !== undefined) entry.headMs = exchange.headMs;
    entry.requestBytes = exchange.request.body?.size ?? 0;
    if (exchange.response) entry.responseBytes = exchange.response.body?.size ?? 0;
  }
  if ((exchange as { blocked?: boolean }).blocked) entry.blocked = true;
  if (exchange.error) entry.error = exchange.error;
  return entry;
}

export class ExchangeFeed {
  private readonly items: RingWindow<Held>;
  private readonly lines = new LineStore();
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

  /** What the window holds now, in bytes (its lines and what each costs besides). */
  get heldBytes(): number {
    return this.bytes;
  }

  /** The newest sequence number given (0: none yet). */
  get last(): number {
    return this.seq;
  }

  /** The oldest sequence number still held (sequence numbers in the window are consecutive). */
  get first(): number {
    return this.seq - this.items.length + 1;
  }

  /**
   * A judged exchange, redacted as the recording holds it: its observations apart from its
   * violations or among them. `line` is the recording's line of it (JSON, without the target),
   * when the session records one: the window holds that string rather than make another.
   */
  push(exchange: WithFindings<Exchange>, judged: boolean, test: string | undefined, line?: string): void {
    // An exchange says when it started; one that does not, says when it was kept.
    const dated = exchange.startedAt === undefined ? { ...exchange, startedAt: new Date().toISOString() } : exchange;
    let kept = keptLine(dated, dated === exchange ? line : undefined);
    let bytes = Buffer.byteLength(kept, 'utf8');
    if (this.budget && !this.budget.take(RECORD_WEIGHT + bytes)) {
      kept = bodilessLine(dated);
      bytes = Buffer.byteLength(kept, 'utf8');
      // Small, and counted: the budget may go over by it, and takes nothing more until it is back under.
      this.budget.hold(RECORD_WEIGHT + bytes);
    }
    const held: Held = {
      line: this.lines.put(kept, bytes),
      judged,
      weight: RECORD_WEIGHT + bytes,
      test,
      handshake: undefined,
    };
    this.hold(held, dated);
  }

  /**
   * A TLS handshake a client refused: no exchange came of it, but a person debugging the client
   * sees it among the exchanges, in its place in time (the proxy's interception publishes it).
   */
  pushRefusedHandshake(refused: RefusedHandshake, at = new Date().toISOString()): FeedEntry {
    const error = `the client refused the TLS handshake for ${refused.host}: ${refused.reason}`;
    const exchange: Exchange = {
      startedAt: at,
      request: { method: 'CONNECT', url: `https://${refused.host}/`, headers: {} },
      error,
    };
    const line = JSON.stringify(exchange);
    const bytes = Buffer.byteLength(line, 'utf8');
    const handshake = keptCopy(refused);
    const weight = RECORD_WEIGHT + bytes + handshake.weight;
    const held: Held = {
      line: this.lines.put(line, bytes),
      judged: false,
      weight,
      test: undefined,
      handshake: handshake.copy,
    };
    this.budget?.hold(weight);
    this.hold(held, exchange);
    return entryOf(this.seq, held, exchange);
  }

  /** Keeps an exchange in the window (the newest `maxCount`, at most `maxBytes`) and tells the listeners. */
  private hold(held: Held, exchange: WithFindings<Exchange>): void {
    this.seq += 1;
    const dropped = this.items.push(held);
    if (dropped) this.drop(dropped);
    this.bytes += held.weight;
    while (this.bytes > this.maxBytes && this.items.length > 1) this.drop(this.items.shift() as Held);
    // The entry is made from the exchange at hand, and only for those listening: the window keeps the line.
    if (this.listeners.size === 0) return;
    const entry = entryOf(this.seq, held, exchange);
    const json = JSON.stringify(entry);
    for (const listener of this.listeners) listener(entry, json);
  }

  private drop(oldest: Held): void {
    this.lines.release(oldest.line);
    this.bytes -= oldest.weight;
    this.budget?.give(oldest.weight);
  }

  /** An exchange read again from its line: its entry, and the exchange with every finding among its violations. */
  private read(index: number): FeedItem | undefined {
    const held = this.items.at(index);
    if (!held) return undefined;
    const recorded = JSON.parse(this.lines.get(held.line)) as WithFindings<Exchange>;
    const entry = entryOf(this.first + index, held, recorded);
    return { entry, exchange: { ...shownExchange(recorded), violations: entry.violations } };
  }

  /** Entries after sequence number `after`, oldest first, at most `limit`. */
  since(after: number, limit = this.maxCount): FeedEntry[] {
    const entries: FeedEntry[] = [];
    for (
      let index = Math.max(0, after + 1 - this.first);
      index < this.items.length && entries.length < limit;
      index += 1
    )
      entries.push((this.read(index) as FeedItem).entry);
    return entries;
  }

  /** Every entry held, newest first. */
  newestFirst(): FeedEntry[] {
    return this.heldItems()
      .map((item) => item.entry)
      .reverse();
  }

  /** Every item held, oldest first (the HAR download, the text search). */
  heldItems(): FeedItem[] {
    const items: FeedItem[] = [];
    for (let index = 0; index < this.items.length; index += 1) items.push(this.read(index) as FeedItem);
    return items;
  }

  item(seq: number): FeedItem | undefined {
    return this.read(seq - this.first);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
