import { maxHeaderSize } from 'node:http';
import { createRequire } from 'node:module';

// Node's own HTTP/1.1 parser (llhttp, in C), the one node:http runs on, driven directly: the proxy
// reads heads and bodies off raw sockets without node:http's request and response objects, which
// cost more CPU per exchange than judging it does. `_http_common` is the legacy module through
// which node exposes this parser (http-parser-js replaces it there); the proxy checks at start
// that it is present, so a Node.js without it fails with one clear line instead of mid-traffic.

interface ParseError extends Error {
  code?: string;
}

interface LlhttpParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(data: Buffer): number | ParseError;
  finish(): undefined | ParseError;
  close(): void;
  [callback: number]: unknown;
}

interface HttpCommon {
  HTTPParser: {
    new (): LlhttpParser;
    REQUEST: number;
    RESPONSE: number;
    kOnMessageBegin: number;
    kOnHeaders: number;
    kOnHeadersComplete: number;
    kOnBody: number;
    kOnMessageComplete: number;
  };
  methods: string[];
}

function loadHttpCommon(): HttpCommon {
  let common: Partial<HttpCommon> = {};
  try {
    common = createRequire(import.meta.url)('_http_common') as Partial<HttpCommon>;
  } catch {
    // Checked below: the same message whether the module or the parser in it is missing.
  }
  if (typeof common.HTTPParser !== 'function' || !Array.isArray(common.methods))
    throw new Error(`this Node.js (${process.version}) does not expose its HTTP parser; the proxy needs it`);
  return common as HttpCommon;
}

const { HTTPParser, methods } = loadHttpCommon();

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
 * The length of a request body that is framed by Content-Length alone: one field of digits and no
 * Transfer-Encoding (llhttp has refused conflicting or malformed ones before the head completes).
 */
function plainLength(rawHeaders: string[]): number {
  let length = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    if (name === 'transfer-encoding') return 0;
    if (name !== 'content-length') continue;
    const value = (rawHeaders[index + 1] as string).trim();
    if (length > 0 || !/^\d{1,15}$/.test(value)) return 0;
    length = Number(value);
  }
  return length;
}

/** What llhttp's on_headers_complete returns: go on; no body; no body, and stop after this head. */
const READ_BODY = 0;
const NO_BODY = 1;
const STOP_AFTER_HEAD = 2;

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
      const head: MessageHead = {
        method: method === undefined ? '' : (methods[method] ?? ''),
        url: this.urlParts + (url ?? ''),
        version: `${major}.${minor}`,
        status: status ?? 0,
        statusText: statusText ?? '',
        rawHeaders,
        keepAlive,
        upgrade,
      };
      this.urlParts = '';
      if (events.head(head)) return NO_BODY;
      // Only requests: whether an answer has a body depends on more than its head (HEAD, 204, 304).
      if (kind === 'request' && !upgrade) {
        const length = plainLength(rawHeaders);
        if (length > 0) {
          this.bodyLeft = length;
          this.stopped = true;
          return STOP_AFTER_HEAD;
        }
      }
      return READ_BODY;
    };
    parser[HTTPParser.kOnBody] = (chunk: Buffer) => events.body(chunk);
    parser[HTTPParser.kOnMessageComplete] = () => {
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

  /** Feeds bytes; returns the parse error's code (HPE_…) when they are no valid HTTP/1.1. */
  execute(chunk: Buffer): string | undefined {
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
        this.events.end();
        if (at === chunk.length) return undefined;
      }
      const result = this.parser.execute(at === 0 ? chunk : chunk.subarray(at));
      if (typeof result !== 'number') return result.code ?? 'HPE_INVALID';
      if (!this.stopped) return undefined;
      // llhttp stopped right after a head (it says where): the body is in the bytes after it.
      this.stopped = false;
      at += result;
    }
  }

  /** The stream ended: completes a body that runs to the end of the connection, else says what is cut. */
  finish(): string | undefined {
    if (this.bodyLeft > 0) return 'HPE_INVALID_EOF_STATE';
    const result = this.parser.finish();
    return result === undefined ? undefined : (result.code ?? 'HPE_INVALID');
  }

  close(): void {
    this.parser.close();
  }
}
