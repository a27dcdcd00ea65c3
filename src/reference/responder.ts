import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SchemaName } from '../contract/schemas.js';
import { writeErrorXml, writeResourceXml } from '../contract/xml-writer.js';
import { acceptedFormat } from '../validate/format.js';
import type { Dialect, OutgoingAnswer } from './dialect.js';

// Writes answers in the format the client asked for: JSON by default, XML when Accept prefers
// application/xml or text/xml, as the real service selects by Accept.

export class Responder {
  readonly format: 'json' | 'xml';

  constructor(
    request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly dialect: Dialect,
    private readonly endpoint: OutgoingAnswer['endpoint'],
  ) {
    const wanted = acceptedFormat(request.headers.accept);
    this.format = dialect.honourAccept && wanted?.format === 'xml' ? 'xml' : 'json';
    this.method = request.method ?? 'GET';
  }

  private readonly method: string;

  private json(value: unknown): string {
    return this.dialect.prettyJson ? JSON.stringify(value, null, 2).replace(/\n/g, '\r\n') : JSON.stringify(value);
  }

  private send(status: number, body: string, format: 'json' | 'xml', headers: Record<string, string>): void {
    let answer: OutgoingAnswer = {
      endpoint: this.endpoint,
      method: this.method,
      format,
      status,
      headers: {
        'content-type': format === 'json' ? 'application/json; charset=utf-8' : 'application/xml; charset=utf-8',
        ...headers,
      },
      body,
    };
    if (this.dialect.rewrite) answer = this.dialect.rewrite(answer);
    if (this.response.headersSent) return;
    this.response.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
    this.response.end(answer.body);
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
