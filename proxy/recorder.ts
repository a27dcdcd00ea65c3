import { createWriteStream, type WriteStream } from 'node:fs';
import type { Exchange, Violation } from '../src/validate/exchange.js';
import { bodyText, header } from '../src/validate/exchange.js';

// Writes each exchange as one NDJSON line as it completes (appending, so a crash loses at most the
// lines of the current turn of the event loop). Lines of one turn go to the file in one write:
// under load, one write per exchange costs the proxy more than judging the exchange does. HAR 1.2 is streamed too: its entries are written as they come and
// the document is closed when the proxy stops, so a long run holds no entries in memory.

export type RecordedExchange = Exchange & { violations: Violation[]; blocked?: boolean };

const HAR_HEAD =
  '{\n  "log": {\n    "version": "1.2",\n    "creator": { "name": "print-conformance", "version": "1" },\n    "entries": [\n';
const HAR_TAIL = '\n    ]\n  }\n}\n';

function opened(stream: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('ready', resolve);
    stream.once('error', reject);
  });
}

export class Recorder {
  private readonly ndjson: WriteStream | undefined;
  private readonly har: WriteStream | undefined;
  private harEntries = 0;
  private pendingLines = '';
  private pendingHar = '';
  private flushScheduled = false;

  constructor(ndjsonFile: string | undefined, harFile: string | undefined) {
    this.ndjson = ndjsonFile ? createWriteStream(ndjsonFile, { flags: 'a' }) : undefined;
    this.har = harFile ? createWriteStream(harFile) : undefined;
  }

  /** Resolves once the files are open, or rejects with why one cannot be written. */
  async ready(): Promise<void> {
    await Promise.all([this.ndjson, this.har].filter((s): s is WriteStream => s !== undefined).map(opened));
    this.har?.write(HAR_HEAD);
  }

  record(exchange: RecordedExchange): void {
    if (this.ndjson) this.pendingLines += `${JSON.stringify(exchange)}\n`;
    if (this.har) {
      this.pendingHar += `${this.harEntries > 0 ? ',\n' : ''}      ${JSON.stringify(harEntry(exchange))}`;
      this.harEntries += 1;
    }
    if (!this.flushScheduled && (this.ndjson || this.har)) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pendingLines) this.ndjson?.write(this.pendingLines);
    if (this.pendingHar) this.har?.write(this.pendingHar);
    this.pendingLines = '';
    this.pendingHar = '';
  }

  async close(): Promise<void> {
    this.flush();
    const ends = [this.ndjson, this.har].map((stream, index) => {
      if (!stream) return Promise.resolve();
      return new Promise<void>((resolve) => stream.end(index === 1 ? HAR_TAIL : undefined, resolve));
    });
    await Promise.all(ends);
  }
}

const pairs = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));

function harEntry(exchange: RecordedExchange): object {
  const { request, response } = exchange;
  const url = new URL(request.url);
  const requestText = bodyText(request.body);
  const responseText = bodyText(response?.body);
  return {
    startedDateTime: exchange.startedAt,
    time: exchange.durationMs ?? 0,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      headers: pairs(request.headers),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: request.body?.size ?? 0,
      ...(request.body
        ? {
            postData: {
              mimeType: header(request.headers, 'content-type') ?? '',
              text: requestText ?? `(${request.body.size} bytes, sha256 ${request.body.sha256 ?? '?'})`,
            },
          }
        : {}),
    },
    response: {
      status: response?.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: pairs(response?.headers ?? {}),
      cookies: [],
      content: {
        size: response?.body?.size ?? 0,
        mimeType: header(response?.headers, 'content-type') ?? '',
        ...(responseText !== undefined ? { text: responseText } : {}),
      },
      redirectURL: header(response?.headers, 'location') ?? '',
      headersSize: -1,
      bodySize: response?.body?.size ?? -1,
    },
    cache: {},
    timings: { send: 0, wait: exchange.durationMs ?? 0, receive: 0 },
    ...(exchange.error ? { _error: exchange.error } : {}),
    _violations: exchange.violations,
  };
}
