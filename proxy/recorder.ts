import { createWriteStream, type WriteStream, writeFileSync } from 'node:fs';
import type { Exchange, Violation } from '../src/validate/exchange.js';
import { bodyText, header } from '../src/validate/exchange.js';

// Writes each exchange as one NDJSON line the moment it completes (appending, so a crash loses at
// most the line being written), and HAR 1.2 at the end.

export type RecordedExchange = Exchange & { violations: Violation[]; blocked?: boolean };

export class Recorder {
  private readonly ndjson: WriteStream | undefined;
  private readonly harEntries: object[] = [];

  constructor(
    ndjsonFile: string | undefined,
    private readonly harFile: string | undefined,
  ) {
    this.ndjson = ndjsonFile ? createWriteStream(ndjsonFile, { flags: 'a' }) : undefined;
  }

  /** Resolves once the file is open, or rejects with why it cannot be written. */
  ready(): Promise<void> {
    const stream = this.ndjson;
    if (!stream) return Promise.resolve();
    return new Promise((resolve, reject) => {
      stream.once('ready', resolve);
      stream.once('error', reject);
    });
  }

  record(exchange: RecordedExchange): void {
    this.ndjson?.write(`${JSON.stringify(exchange)}\n`);
    if (this.harFile) this.harEntries.push(harEntry(exchange));
  }

  async close(): Promise<void> {
    const stream = this.ndjson;
    if (stream) await new Promise<void>((resolve) => stream.end(resolve));
    if (this.harFile) {
      const har = {
        log: { version: '1.2', creator: { name: 'print-conformance', version: '1' }, entries: this.harEntries },
      };
      writeFileSync(this.harFile, `${JSON.stringify(har, null, 2)}\n`);
    }
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
