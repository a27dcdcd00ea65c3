import { keptCopy } from '../findings/kept-copy.js';
import type { Exchange, RecordedBody, Violation } from '../validate/exchange.js';

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
  durationMs?: number;
  /** Judged by the rules (an exchange of the interface), or only passed through (orders, other paths). */
  judged: boolean;
  blocked?: boolean;
  error?: string;
  violations: Violation[];
}

export interface FeedItem {
  entry: FeedEntry;
  /** The exchange as recorded (redacted), its text bodies cut to what a page shows. */
  exchange: Exchange;
}

/** Text shown of a body, per side: more is cut, and the page says so. */
export const SHOWN_BODY_CHARS = 64 * 1024;
const DEFAULT_COUNT = 1000;
const DEFAULT_BYTES = 32 * 1024 * 1024;

type Listener = (entry: FeedEntry) => void;

/** Memory shared with the rest of the process (the proxy's --memory-budget): the window is charged what it holds. */
export interface FeedBudget {
  take(bytes: number): boolean;
  hold(bytes: number): void;
  give(bytes: number): void;
}

const NOT_KEPT = 'not kept for the page: the memory budget (--memory-budget) is spent';

/** A body without its text, for a window whose budget is spent. */
function withoutText(body: RecordedBody | undefined): RecordedBody | undefined {
  if (!body) return undefined;
  const { text: _text, base64: _base64, headBase64: _head, parts: _parts, ...rest } = body;
  return { ...rest, skipped: NOT_KEPT };
}

function cutBody(body: RecordedBody | undefined): RecordedBody | undefined {
  if (!body) return undefined;
  const { base64: _dropped, ...rest } = body;
  if (rest.text !== undefined && rest.text.length > SHOWN_BODY_CHARS)
    return {
      ...rest,
      text: rest.text.slice(0, SHOWN_BODY_CHARS),
      skipped: `cut at ${SHOWN_BODY_CHARS} characters here`,
    };
  return rest;
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
    if (exchange.blocked) entry.blocked = true;
    if (exchange.error) entry.error = exchange.error;
    const cut: Exchange = {
      ...exchange,
      request: { ...exchange.request, body: cutBody(exchange.request.body) },
      ...(exchange.response ? { response: { ...exchange.response, body: cutBody(exchange.response.body) } } : {}),
    };
    // A copy holding nothing of the exchange (a cut of a body is a view of all of it), weighed as kept.
    let kept = keptCopy({ entry, exchange: cut });
    if (this.budget && !this.budget.take(kept.weight)) {
      kept = keptCopy({
        entry,
        exchange: {
          ...cut,
          request: { ...cut.request, body: withoutText(cut.request.body) },
          ...(cut.response ? { response: { ...cut.response, body: withoutText(cut.response.body) } } : {}),
        },
      });
      // Small, and counted: the budget may go over by it, and takes nothing more until it is back under.
      this.budget.hold(kept.weight);
    }
    this.items.push({ ...kept.copy, weight: kept.weight });
    this.bytes += kept.weight;
    while (this.items.length > this.maxCount || (this.bytes > this.maxBytes && this.items.length > 1)) {
      const oldest = this.items.shift() as FeedItem & { weight: number };
      this.bytes -= oldest.weight;
      this.budget?.give(oldest.weight);
    }
    for (const listener of this.listeners) listener(kept.copy.entry);
    return kept.copy.entry;
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
