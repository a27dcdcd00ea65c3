import type { Exchange, RecordedBody, Violation } from '../validate/exchange.js';

// The one stream of judged exchanges that the control API, its event stream and the live page
// read, as the recorder reads it: each exchange arrives redacted as the recording holds it, gets a
// sequence number, and is kept in a bounded window (a count and a size of bodies), so that a burst
// of thousands neither grows memory without bound nor is lost to a reader that asks from where it
// left off, as long as it asks in time.
//
// Every exchange the proxy forwards passes here, read or not: what a reader sees of it (its list
// entry, its copy with bodies cut to what a page shows) is made when first asked for, and kept once
// made. Until then the window holds the exchange's recorded NDJSON line when the recorder wrote one
// (one string, which costs the garbage collector far less to keep than the objects it was made
// of), else the recorder's exchange object by reference; only a body longer than a page shows, or
// a binary one, is cut at once, so that the window never holds it whole. The event stream's text
// of an entry is made once for all streams.

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

/** Told of each exchange as it is pushed: its entry, and that entry as JSON (made once for every listener). */
type Listener = (entry: FeedEntry, json: string) => void;

type FedExchange = Exchange & { violations: Violation[]; blocked?: boolean };

/** One exchange in the window: what readers see of it is made on first demand. */
interface Held {
  seq: number;
  /** The time it was pushed, for an exchange that holds no time of its own. */
  pushedAt: string | undefined;
  /** The exchange, or its recorded line (JSON of the same exchange) until it is first read. */
  source: FedExchange | string;
  /** Its findings, observations too (the recording holds those apart). */
  violations: Violation[];
  judged: boolean;
  test: string | undefined;
  weight: number;
  entry: FeedEntry | undefined;
  /** Its copy with bodies cut to what a page shows, once made (at once for a body that must be cut). */
  kept: Exchange | undefined;
}

/** Whether a body is held otherwise than as it came: binary (its base64 is dropped) or longer than a page shows. */
function mustCut(body: RecordedBody | undefined): boolean {
  return body !== undefined && (body.base64 !== undefined || (body.text?.length ?? 0) > SHOWN_BODY_CHARS);
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

function cutCopy(exchange: FedExchange, violations: Violation[]): Exchange {
  const copy: FedExchange = {
    ...exchange,
    violations,
    request: { ...exchange.request, body: cutBody(exchange.request.body) },
    ...(exchange.response ? { response: { ...exchange.response, body: cutBody(exchange.response.body) } } : {}),
  };
  return copy;
}

/** What a body costs the window: its text as kept (cut to what a page shows), two bytes a character. */
function bodyWeight(body: RecordedBody | undefined): number {
  return Math.min(body?.text?.length ?? 0, SHOWN_BODY_CHARS) * 2;
}

function weight(exchange: Exchange): number {
  return 512 + bodyWeight(exchange.request.body) + bodyWeight(exchange.response?.body);
}

/** No findings: one array for every exchange without any, rather than one each kept in the window. */
const NONE: Violation[] = [];

function exchangeOf(held: Held): FedExchange {
  if (typeof held.source === 'string') held.source = JSON.parse(held.source) as FedExchange;
  return held.source;
}

function entryOf(held: Held): FeedEntry {
  if (held.entry) return held.entry;
  const exchange = exchangeOf(held);
  const entry: FeedEntry = {
    seq: held.seq,
    at: exchange.startedAt ?? held.pushedAt ?? '',
    method: exchange.request.method,
    url: exchange.request.url,
    judged: held.judged,
    violations: held.violations,
  };
  if (exchange.response) entry.status = exchange.response.status;
  if (held.test !== undefined) entry.test = held.test;
  if (exchange.durationMs !== undefined) entry.durationMs = exchange.durationMs;
  if (exchange.blocked) entry.blocked = true;
  if (exchange.error) entry.error = exchange.error;
  held.entry = entry;
  return entry;
}

export class ExchangeFeed {
  private readonly items: Held[] = [];
  private bytes = 0;
  private seq = 0;
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly maxCount = DEFAULT_COUNT,
    private readonly maxBytes = DEFAULT_BYTES,
  ) {}

  /** The newest sequence number given (0: none yet). */
  get last(): number {
    return this.seq;
  }

  /** The oldest sequence number still held. */
  get first(): number {
    return this.items[0]?.seq ?? this.seq + 1;
  }

  /**
   * A judged exchange, redacted as the recording holds it; `violations`: its findings, when the
   * exchange holds only some of them (the recording keeps observations apart); `line`: the
   * exchange as the recording's NDJSON line, when one was written. The exchange is held as it is:
   * it must not change after.
   */
  push(
    exchange: FedExchange,
    judged: boolean,
    test: string | undefined,
    violations: Violation[] = exchange.violations,
    line?: string,
  ): void {
    this.seq += 1;
    const held: Held = {
      seq: this.seq,
      pushedAt: exchange.startedAt === undefined ? new Date().toISOString() : undefined,
      source: line ?? exchange,
      violations: violations.length === 0 ? NONE : violations,
      judged,
      test,
      weight: weight(exchange),
      entry: undefined,
      kept: undefined,
    };
    if (mustCut(exchange.request.body) || mustCut(exchange.response?.body)) {
      held.kept = cutCopy(exchange, violations);
      held.source = held.kept as FedExchange;
    }
    this.items.push(held);
    this.bytes += held.weight;
    while (this.items.length > this.maxCount || (this.bytes > this.maxBytes && this.items.length > 1)) {
      const oldest = this.items.shift() as Held;
      this.bytes -= oldest.weight;
    }
    if (this.listeners.size === 0) return;
    const entry = entryOf(held);
    const json = JSON.stringify(entry);
    for (const listener of this.listeners) listener(entry, json);
  }

  /** Entries after sequence number `after`, oldest first, at most `limit`. */
  since(after: number, limit = this.maxCount): FeedEntry[] {
    const from = this.items.findIndex((held) => held.seq > after);
    if (from < 0) return [];
    return this.items.slice(from, from + limit).map(entryOf);
  }

  /** Every entry held, newest first. */
  newestFirst(): FeedEntry[] {
    return this.items.map(entryOf).reverse();
  }

  item(seq: number): FeedItem | undefined {
    const index = seq - this.first;
    const found = this.items[index]?.seq === seq ? this.items[index] : this.items.find((held) => held.seq === seq);
    if (!found) return undefined;
    found.kept ??= cutCopy(exchangeOf(found), found.violations);
    return { entry: entryOf(found), exchange: found.kept };
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
