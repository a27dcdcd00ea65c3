// The control API's event stream (GET api/events): judged exchanges as server-sent events from a
// sequence number on, refused handshakes as they come, a heartbeat, and a reader too far behind
// dropped so it reconnects. Apart from control-plane.ts, which routes requests, since a stream
// lives on after its request is answered.
import type { ExchangeFeed, FeedEntry } from './exchange-feed.js';
import type { RefusedHandshakes } from './refused-handshakes.js';

/** Where an event stream writes; `buffered` is what waits in the socket unread. */
export interface StreamSink {
  write(text: string): void;
  end(): void;
  buffered(): number;
  onClose(listener: () => void): void;
}

/** A stream's client that reads this much less than is sent is dropped (it reconnects from where it was). */
const STREAM_BACKLOG = 4 * 1024 * 1024;
const HEARTBEAT_MS = 15_000;

/**
 * Streams `feed` into `sink` from sequence number `from` (the newest when it is none), and keeps the
 * sink in `open` for as long as it is open.
 */
export function streamEvents(
  sink: StreamSink,
  feed: ExchangeFeed,
  handshakes: RefusedHandshakes | undefined,
  from: number,
  open: Set<StreamSink>,
): void {
  // `json`: the entry as JSON, made once by the feed for every stream open.
  const send = (entry: FeedEntry, json: string) => {
    if (sink.buffered() > STREAM_BACKLOG) {
      // A reader this far behind reconnects and asks from its last event: the window has it, or says what it lost.
      sink.end();
      return;
    }
    sink.write(`event: exchange\nid: ${entry.seq}\ndata: ${json}\n\n`);
  };
  sink.write(`retry: 1000\n\n`);
  for (const entry of feed.since(Number.isInteger(from) && from >= 0 ? from : feed.last))
    send(entry, JSON.stringify(entry));
  const unsubscribe = feed.subscribe(send);
  // Refused handshakes are no exchanges: events without a sequence number, from now on.
  const unsubscribeHandshakes = handshakes?.subscribe((handshake) =>
    sink.write(`event: handshake\ndata: ${JSON.stringify(handshake)}\n\n`),
  );
  const heartbeat = setInterval(() => sink.write(': still here\n\n'), HEARTBEAT_MS).unref();
  open.add(sink);
  sink.onClose(() => {
    unsubscribe();
    unsubscribeHandshakes?.();
    clearInterval(heartbeat);
    open.delete(sink);
  });
}
