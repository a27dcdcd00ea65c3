import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { SchemaName } from '../contract/schemas.js';
import { writeErrorXml, writeResourceXml } from '../contract/xml-writer.js';
import { acceptedFormat } from '../validate/format.js';
import type { Dialect, IncomingView, OutgoingAnswer } from './dialect.js';

// Writes answers in the format the client asked for: JSON by default, XML when Accept prefers
// application/xml or text/xml, as the real service selects by Accept.

const CODERS = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

export class Responder {
  readonly format: 'json' | 'xml';

  constructor(
    request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly dialect: Dialect,
    private readonly endpoint: OutgoingAnswer['endpoint'],
  ) {
    const wanted = acceptedFormat(request.headers.accept);
    this.method = request.method ?? 'GET';
    this.path = (request.url ?? '/').split('?')[0] ?? '/';
    this.acceptEncoding = request.headers['accept-encoding'];
    this.acceptLanguage = request.headers['accept-language'];
    const view: IncomingView = { endpoint, method: this.method, headers: request.headers };
    this.format = dialect.answerFormat?.(view) ?? (dialect.honourAccept && wanted?.format === 'xml' ? 'xml' : 'json');
  }

  private readonly method: string;
  private readonly path: string;
  private readonly acceptEncoding: string | undefined;
  private readonly acceptLanguage: string | undefined;

  private json(value: unknown): string {
    return this.dialect.prettyJson ? JSON.stringify(value, null, 2).replace(/\n/g, '\r\n') : JSON.stringify(value);
  }

  private send(status: number, body: string, format: 'json' | 'xml', headers: Record<string, string>): void {
    let answer: OutgoingAnswer = {
      endpoint: this.endpoint,
      method: this.method,
      path: this.path,
      format,
      status,
      headers: {
        'content-type': format === 'json' ? 'application/json; charset=utf-8' : 'application/xml; charset=utf-8',
        ...headers,
      },
      body,
      ...(this.acceptEncoding === undefined ? {} : { acceptEncoding: this.acceptEncoding }),
      ...(this.acceptLanguage === undefined ? {} : { acceptLanguage: this.acceptLanguage }),
    };
    if (this.dialect.rewrite) answer = this.dialect.rewrite(answer);
    if (this.response.headersSent) return;
    const text =
      answer.encoding === 'utf16le'
        ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(answer.body, 'utf16le')])
        : answer.encoding === 'utf16be'
          ? Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(answer.body, 'utf16le').swap16()])
          : Buffer.from(answer.body, answer.encoding ?? 'utf8');
    const bytes = answer.coding ? CODERS[answer.coding](text) : text;
    if (answer.coding) answer = { ...answer, headers: { ...answer.headers, 'content-encoding': answer.coding } };
    if (this.dialect.chunked) {
      // No length: Node sends the body with Transfer-Encoding: chunked, here in two chunks.
      this.response.writeHead(answer.status, answer.headers);
      this.response.write(bytes.subarray(0, bytes.length >> 1));
      this.response.end(bytes.subarray(bytes.length >> 1));
      return;
    }
    this.response.writeHead(answer.status, { ...answer.headers, 'content-length': bytes.length });
    this.response.end(bytes);
  }

  /** A resource: JSON as is, XML derived from its schema. */
  resource(
    status: number,
    schema: SchemaName,
    model: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): void {
    const body = this.format === 'json' ? this.json(model) : writeResourceXml(schema, model, this.dialect.xmlNilPrefix);
    this.send(status, body, this.format, headers);
  }

  /** Plain JSON (orders, tokens): not part of the described interface, always JSON as the real service. */
  plainJson(status: number, value: unknown, headers: Record<string, string> = {}): void {
    this.send(status, this.json(value), 'json', headers);
  }

  error(status: number, message: string, hints: string[] = [], headers: Record<string, string> = {}): void {
    const body = this.format === 'json' ? this.json({ message, hints }) : writeErrorXml(message, hints);
    this.send(status, body, this.format, headers);
  }
}
