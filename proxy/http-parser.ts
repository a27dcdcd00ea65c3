import { maxHeaderSize } from 'node:http';
import { ChunkedEnd } from './chunked-end.js';
import { endMatched, headEnd, spaceTrailingTabs } from './head-ows.js';
import { HTTPParser, type LlhttpParser, methods } from './llhttp-binding.js';
import { answerFraming, CHUNKED, type Framing, requestFraming } from './message-framing.js';

// Node's own HTTP/1.1 parser (llhttp, llhttp-binding.ts) driven directly: heads and bodies read
// off raw sockets without node:http's request and response objects.

export type { Framing } from './message-framing.js';

export interface MessageHead {
  /** Requests: the method and request target as sent. */
  method: string;
  url: string;
  /** "1.1" or "1.0". */
  version: string;
  /** Responses: the status and its reason phrase. */
  status: number;
  statusText: string;
  /** Header names and values in the order and spelling they came in: name, value, name, value… */
  rawHeaders: string[];
  /** Whether the connection stays open after this message (HTTP/1.1 default, Connection header). */
  keepAlive: boolean;
  /** CONNECT, or a request to switch protocols: the parser reads no further. */
  upgrade: boolean;
  /**
   * How the body is framed, as this parser reads it. Decided here once, from the fields llhttp
   * framed the message by: nothing else reads framing from header text (a proxy that frames a
   * body otherwise than its parser did lets a request hide another inside its body).
   */
  framing: Framing;
}

export interface MessageEvents {
  /** The first byte of a message has come. */
  begin?(): void;
  /** Returns true when the message has no body whatever its head says (an answer to HEAD). */
  head(head: MessageHead): boolean;
  /** Body bytes, with any chunked framing (and trailer fields) already taken off. */
  body(chunk: Buffer): void;
  end(): void;
}

/**
 * Body pieces llhttp hands over smaller than this are joined with the others of the same read
 * before they are passed on: a body sent in one-byte chunks would otherwise become a Buffer (a
 * few hundred bytes of memory) and a write per byte. Larger pieces pass as they are.
 */
const SMALL_PIECE = 1024;
/**
 * Where small pieces are joined: one for all parsers (they are passed on before any other event,
 * so no two messages share it at once). Each piece is copied at once, so that the Buffer llhttp
 * made for it dies young rather than live on, a piece of garbage per byte, in the old generation.
 */
const joined = Buffer.allocUnsafeSlow(64 * 1024);
let joinedUsed = 0;

/** What llhttp's on_headers_complete returns: go on; no body; no body, and stop after this head. */
const READ_BODY = 0;
const NO_BODY = 1;
const STOP_AFTER_HEAD = 2;

/**
 * Longest run of white space ending in a tab held back at the end of a read until the next says
 * whether a CRLF follows it: longer, and the head is refused as too large rather than read as
 * llhttp would read the tab (see head-ows.ts).
 */
const MOST_HELD = 1024;

/** Reads a stream of HTTP/1.1 requests or responses, message after message. */
export class MessageParser {
  private readonly parser: LlhttpParser;
  private readonly type: number;
  // Heads with many fields arrive in parts before the head is complete.
  private headerParts: string[] = [];
  private urlParts = '';
  /**
   * Bytes of a request body with a Content-Length still to come. Such a body is cut from the
   * socket's own chunks rather than handed over by llhttp, which copies every piece of a body it
   * reads: for uploads of hundreds of megabytes that copy cost as much as forwarding them.
   */
  private bodyLeft = 0;
  /** llhttp stopped after a head whose body this class reads itself. */
  private stopped = false;
  /** Why the last head cannot be read on (its framing is refused): llhttp was stopped after it. */
  private refused: string | undefined;
  /** A CONNECT or upgrade head was read: llhttp reads no further, and what came after it is kept. */
  private upgraded = false;
  private afterUpgrade: Buffer | undefined;
  /** The one small body piece of the current read so far (passed on as it is if no other comes). */
  private firstSmall: Buffer | undefined;
  /** Small body pieces of the current read are in `joined` (see SMALL_PIECE). */
  private small = false;
  /**
   * llhttp is reading a head (or is between messages), not a body: the bytes it is given next
   * are head bytes up to the head's end, whose trailing tabs become spaces (head-ows.ts).
   */
  private inHead = true;
  /** How the body llhttp is reading is framed, and how many bytes of it are still to come (by length). */
  private bodyFraming: Framing = { kind: 'none' };
  private bodyToCome = 0;
  /** How much of "\r\n\r\n" the bytes given to llhttp so far end with. */
  private endMatch = 0;
  /** The end of the last read: white space with a tab whose line goes on in the next read. */
  private heldRun: Buffer | undefined;
  /** Where a chunked body read by llhttp ends (see bodyPart). */
  private readonly chunkedEnd = new ChunkedEnd();
  /** llhttp was last given a chunked body up to where its chunks end. */
  private chunkedPaused = false;
  /** llhttp read on past that end: the rest of this body is given to it as it comes. */
  private chunkedLost = false;

  constructor(
    kind: 'request' | 'response',
    private readonly events: MessageEvents,
  ) {
    const parser = new HTTPParser();
    this.type = kind === 'request' ? HTTPParser.REQUEST : HTTPParser.RESPONSE;
    parser.initialize(this.type, {}, maxHeaderSize, 0);
    if (events.begin) parser[HTTPParser.kOnMessageBegin] = events.begin;
    parser[HTTPParser.kOnHeaders] = (headers: string[], url: string) => {
      this.headerParts.push(...headers);
      this.urlParts += url;
    };
    parser[HTTPParser.kOnHeadersComplete] = (
      major: number,
      minor: number,
      headers: string[] | undefined,
      method: number | undefined,
      url: string | undefined,
      status: number | undefined,
      statusText: string | undefined,
      upgrade: boolean,
      keepAlive: boolean,
    ) => {
      let rawHeaders = headers ?? [];
      if (this.headerParts.length > 0) {
        rawHeaders = this.headerParts.concat(rawHeaders);
        this.headerParts = [];
      }
      const version = `${major}.${minor}`;
      // llhttp reads HTTP/0.9 and HTTP/2.0 request lines too: the proxy forwards HTTP/1.x alone (505).
      const framing =
        kind === 'request'
          ? version === '1.1' || version === '1.0'
            ? requestFraming(rawHeaders)
            : 'HPE_INVALID_VERSION'
          : answerFraming(rawHeaders);
      const fullUrl = this.urlParts + (url ?? '');
      this.urlParts = '';
      if (typeof framing === 'string') {
        // Refused before anyone reads the head: llhttp stops here, and execute says why.
        this.refused = framing;
        this.stopped = true;
        return STOP_AFTER_HEAD;
      }
      if (upgrade) this.upgraded = true;
      this.inHead = false;
      this.bodyFraming = framing;
      this.bodyToCome = framing.kind === 'length' ? framing.length : 0;
      if (framing.kind === 'chunked') {
        this.chunkedEnd.reset();
        this.chunkedLost = false;
      }
      const head: MessageHead = {
        method: method === undefined ? '' : (methods[method] ?? ''),
        url: fullUrl,
        version,
        status: status ?? 0,
        statusText: statusText ?? '',
        rawHeaders,
        // An HTTP/1.0 message with Transfer-Encoding has faulty framing: the connection closes after it (RFC 9112 §6.1).
        keepAlive: keepAlive && !(framing === CHUNKED && version === '1.0'),
        upgrade,
        framing,
      };
      if (events.head(head)) return NO_BODY;
      // Only requests: whether an answer has a body depends on more than its head (HEAD, 204, 304).
      if (kind === 'request' && !upgrade && framing.kind === 'length' && framing.length > 0) {
        this.bodyLeft = framing.length;
        this.stopped = true;
        return STOP_AFTER_HEAD;
      }
      return READ_BODY;
    };
    parser[HTTPParser.kOnBody] = (chunk: Buffer) => {
      if (chunk.length < SMALL_PIECE) {
        // Most bodies come as one piece a read: held as it is until another comes.
        if (!this.small) {
          this.small = true;
          this.firstSmall = chunk;
          return;
        }
        if (this.firstSmall) {
          this.firstSmall.copy(joined, joinedUsed);
          joinedUsed += this.firstSmall.length;
          this.firstSmall = undefined;
        }
        if (joinedUsed + chunk.length > joined.length) this.passSmallPieces();
        chunk.copy(joined, joinedUsed);
        joinedUsed += chunk.length;
        this.small = true;
        return;
      }
      if (this.small) this.passSmallPieces();
      events.body(chunk);
    };
    parser[HTTPParser.kOnMessageComplete] = () => {
      this.inHead = true;
      if (this.small) this.passSmallPieces();
      // Fields that arrive after the head are the trailer of a chunked body (the parser hands
      // them over, with the URL, as it hands over the parts of a long head). They belong to this
      // message alone and are dropped, as nginx does: never merged into the next message's head.
      if (this.headerParts.length > 0) this.headerParts = [];
      this.urlParts = '';
      // A body read by this class ends when its last byte has come, not with its head.
      if (!this.stopped) events.end();
    };
    this.parser = parser;
  }

  /** The small pieces of body held back in this read, passed on as one Buffer of their own. */
  private passSmallPieces(): void {
    const first = this.firstSmall;
    if (first) {
      this.firstSmall = undefined;
      this.small = false;
      this.events.body(first);
      return;
    }
    const bytes = Buffer.allocUnsafe(joinedUsed);
    joined.copy(bytes, 0, 0, joinedUsed);
    joinedUsed = 0;
    this.small = false;
    this.events.body(bytes);
  }

  /** Feeds bytes; returns the parse error's code (HPE_…) when they are no valid HTTP/1.1. */
  execute(chunk: Buffer): string | undefined {
    if (this.refused) return this.refused;
    let bytes = chunk;
    if (this.heldRun) {
      bytes = Buffer.concat([this.heldRun, chunk]);
      this.heldRun = undefined;
    }
    let error: string | undefined;
    try {
      error = this.read(bytes);
    } catch (thrown) {
      // What a failed read joined belongs to no one: the next parser starts with an empty `joined`.
      joinedUsed = 0;
      this.small = false;
      this.firstSmall = undefined;
      throw thrown;
    }
    if (this.small) this.passSmallPieces();
    return error;
  }

  private read(chunk: Buffer): string | undefined {
    let at = 0;
    for (;;) {
      if (this.bodyLeft > 0) {
        const length = Math.min(this.bodyLeft, chunk.length - at);
        if (length === 0) return undefined;
        this.bodyLeft -= length;
        this.events.body(at === 0 && length === chunk.length ? chunk : chunk.subarray(at, at + length));
        at += length;
        if (this.bodyLeft > 0) return undefined;
        // The body is whole: llhttp, stopped after its head, starts afresh on the next message.
        this.parser.initialize(this.type, {}, maxHeaderSize, 0);
        this.inHead = true;
        this.endMatch = 0;
        this.events.end();
        if (at === chunk.length) return undefined;
      }
      let to: number;
      let piece: Buffer;
      if (this.inHead) {
        to = this.headEnd(chunk, at);
        piece = at === 0 && to === chunk.length ? chunk : chunk.subarray(at, to);
        const spaced = spaceTrailingTabs(piece);
        if (spaced) {
          piece = spaced.bytes;
          if (spaced.undecided !== -1) {
            // The line goes on in the next read: the run waits for it, and llhttp reads up to it.
            if (chunk.length - (at + spaced.undecided) > MOST_HELD) return 'HPE_HEADER_OVERFLOW';
            this.heldRun = Buffer.from(chunk.subarray(at + spaced.undecided));
            to = at + spaced.undecided;
            piece = piece.subarray(0, spaced.undecided);
          }
        }
      } else {
        to = this.bodyPart(chunk, at);
        piece = at === 0 && to === chunk.length ? chunk : chunk.subarray(at, to);
      }
      if (to > at) {
        const result = this.parser.execute(piece);
        if (typeof result !== 'number') return result.code ?? 'HPE_INVALID';
        this.endMatch = endMatched(chunk, at, to, this.endMatch);
        if (this.chunkedPaused) {
          this.chunkedPaused = false;
          if (!this.inHead) this.chunkedLost = true;
        }
        if (this.upgraded) {
          // The bytes after a CONNECT's head belong to the tunnel, not to HTTP.
          this.afterUpgrade ??= chunk.subarray(at + result);
          return undefined;
        }
        if (this.stopped) {
          if (this.refused) return this.refused;
          // llhttp stopped right after a head (it says where): the body is in the bytes after it.
          this.stopped = false;
          at += result;
          continue;
        }
      }
      at = to;
      if (at === chunk.length || this.heldRun) return undefined;
    }
  }

  /** Where the head bytes from `at` end in this read: at the head's end, or the read's. */
  private headEnd(chunk: Buffer, at: number): number {
    const end = headEnd(chunk, at, this.endMatch);
    return end === -1 ? chunk.length : end;
  }

  /**
   * Where to stop giving llhttp body bytes from `at`: at the body's end (by its length, or
   * where its chunks end), so that llhttp never reads the head of a message after it before
   * the head's tabs are spaced; a body that runs to the end of the connection, at the read's end.
   */
  private bodyPart(chunk: Buffer, at: number): number {
    if (this.bodyFraming.kind === 'length') {
      const to = Math.min(chunk.length, at + this.bodyToCome);
      this.bodyToCome -= to - at;
      return to > at ? to : chunk.length;
    }
    if (this.bodyFraming.kind !== 'chunked' || this.chunkedLost) return chunk.length;
    const end = this.chunkedEnd.end(chunk, at);
    if (end === -1) return chunk.length;
    this.chunkedPaused = true;
    return end;
  }

  /** After a CONNECT's head: the bytes that came after it (none yet: an empty buffer). */
  takeAfterUpgrade(): Buffer {
    const rest = this.afterUpgrade ?? Buffer.alloc(0);
    this.afterUpgrade = undefined;
    return rest;
  }

  /** The stream ended: completes a body that runs to the end of the connection, else says what is cut. */
  finish(): string | undefined {
    if (this.refused) return this.refused;
    if (this.heldRun) return 'HPE_INVALID_EOF_STATE';
    if (this.bodyLeft > 0) return 'HPE_INVALID_EOF_STATE';
    const result = this.parser.finish();
    return result === undefined ? undefined : (result.code ?? 'HPE_INVALID');
  }

  close(): void {
    this.parser.close();
  }
}
