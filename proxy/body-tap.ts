import { createHash, type Hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import busboy from 'busboy';
import { isTextualMediaType } from '../src/validate/document.js';
import type { MultipartPart, RecordedBody } from '../src/validate/exchange.js';
import { mediaType } from '../src/validate/exchange.js';

// Watches a body flow past without holding it: counts, hashes and keeps the first bytes; keeps the
// whole body only while it stays under the validation limit; reads multipart part headers as they
// pass. What it saw becomes a RecordedBody for the core.

const HEAD_BYTES = 64;
const EMPTY_SHA256 = createHash('sha256').digest('hex');

export interface TapOptions {
  /** Keep bodies up to this size whole for validation (JSON, XML, forms). */
  keepLimit: number;
  /** Keep binary bodies whole too (under the limit): --record-bodies. */
  keepBinary: boolean;
}

export class BodyTap {
  size = 0;
  // Made on the first chunk: most requests (GETs) have no body at all.
  private hash: Hash | undefined;
  private head = Buffer.alloc(0);
  private kept: Buffer[] | undefined = [];
  private keptSize = 0;
  private readonly parts: MultipartPart[] = [];
  private parser: busboy.Busboy | undefined;
  private readonly type: string | undefined;

  constructor(
    private readonly headers: IncomingHttpHeaders,
    private readonly options: TapOptions,
  ) {
    this.type = mediaType(headers['content-type']);
    if (this.type === 'multipart/form-data') this.startMultipart();
  }

  private startMultipart(): void {
    try {
      const parser = busboy({ headers: this.headers as Record<string, string>, limits: { fieldSize: 1024 } });
      parser.on('file', (name, stream, info) => {
        const part: MultipartPart = { name, filename: info.filename, contentType: info.mimeType, size: 0 };
        this.parts.push(part);
        let head = Buffer.alloc(0);
        stream.on('data', (chunk: Buffer) => {
          part.size += chunk.length;
          if (head.length < HEAD_BYTES) {
            head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
            part.headBase64 = head.toString('base64');
          }
        });
      });
      parser.on('field', (name, value) => this.parts.push({ name, size: Buffer.byteLength(value) }));
      // A malformed multipart body is the service's to judge; the tap just stops reading parts.
      parser.on('error', () => {
        this.parser = undefined;
      });
      this.parser = parser;
    } catch {
      this.parser = undefined;
    }
  }

  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (!this.hash) this.hash = createHash('sha256');
    this.hash.update(chunk);
    if (this.head.length < HEAD_BYTES)
      this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    if (this.kept) {
      this.keptSize += chunk.length;
      if (this.keptSize > this.options.keepLimit) this.kept = undefined;
      else this.kept.push(chunk);
    }
    this.parser?.write(chunk);
  }

  /** The body as seen, decoded (gzip, deflate, br) for validation when it was kept whole. */
  finish(contentEncoding?: string): RecordedBody {
    // Both the early (header-time) and the final judgement ask; the body is read once.
    if (this.finished) return this.finished;
    this.finished = this.read(contentEncoding);
    return this.finished;
  }

  private finished: RecordedBody | undefined;

  private read(contentEncoding?: string): RecordedBody {
    this.parser?.end();
    const body: RecordedBody = { size: this.size, sha256: this.hash ? this.hash.digest('hex') : EMPTY_SHA256 };
    if (this.size === 0) {
      body.text = '';
      return body;
    }
    let whole: Buffer | undefined = this.kept ? Buffer.concat(this.kept) : undefined;
    if (whole && contentEncoding && contentEncoding !== 'identity') {
      try {
        const limit = { maxOutputLength: this.options.keepLimit };
        const decoders: Record<string, (b: Buffer) => Buffer> = {
          gzip: (b) => gunzipSync(b, limit),
          'x-gzip': (b) => gunzipSync(b, limit),
          deflate: (b) => inflateSync(b, limit),
          br: (b) => brotliDecompressSync(b, limit),
        };
        const decode = decoders[contentEncoding.toLowerCase()];
        whole = decode ? decode(whole) : undefined;
      } catch {
        whole = undefined;
        body.skipped = `cannot decode ${contentEncoding}`;
      }
    }
    if (this.parts.length > 0) body.parts = this.parts;
    if (whole && (!this.type || isTextualMediaType(this.type))) body.text = whole.toString('utf8');
    else if (whole && this.options.keepBinary) body.base64 = whole.toString('base64');
    else {
      body.headBase64 = this.head.toString('base64');
      if (!whole && (!this.type || isTextualMediaType(this.type)) && !body.skipped)
        body.skipped = `not validated: too large (over ${this.options.keepLimit} bytes)`;
    }
    return body;
  }
}
