import { createHash, type Hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { availableParallelism } from 'node:os';
import busboy from 'busboy';
import { codingErrorText, decodeContent, decodedTooLarge } from '../src/validate/content-coding.js';
import { isTextualMediaType } from '../src/validate/document.js';
import {
  decodeText,
  decodeTextOfPieces,
  type MultipartPart,
  mediaType,
  type RecordedBody,
} from '../src/validate/exchange.js';
import { HeldBytes } from './held-bytes.js';
import type { MemoryBudget } from './memory-budget.js';
import { OffThreadHash } from './off-thread-hash.js';

// Watches a body flow past without holding it: counts and keeps the first bytes; keeps the whole
// body only when it is one the core reads whole (JSON, XML, forms, text; any body for
// --record-bodies), while it stays under the validation limit and the process's memory budget;
// reads multipart part headers as they pass. What it saw becomes a RecordedBody for the core. A
// body recorded as text needs no digest (the text is there); any other is hashed as it passes:
// a request's piece after it was written to the target (client-connection.ts), so that the target
// reads it while it is hashed; a large upload on a worker thread (off-thread-hash.ts) when there
// are cores to spare.

const HEAD_BYTES = 64;
export const offThreadHashing = {
  /** Uploads declared this large are hashed on the worker thread; smaller ones cost less in this one. */
  from: 8 * 1024 * 1024,
  /**
   * The worker thread pays off only with a core of its own beside the proxy, the client and the
   * service: it takes SHA-256 (about as much CPU per megabyte as forwarding) off the forwarding
   * thread, but copying bytes to it costs more CPU in all. On two busy cores hashing in line is faster.
   */
  enabled: availableParallelism() >= 4,
};

/** Why a body the core reads whole could not be read: kept too large, over the budget, or in a coding not decoded. */
export type Unread = 'too-large' | 'budget' | 'coding';

export interface TapOptions {
  /** Keep bodies up to this size whole for validation (JSON, XML, forms). */
  keepLimit: number;
  /** Keep binary bodies whole too (under the limit): --record-bodies. */
  keepBinary: boolean;
  /** Shared by every body the proxy holds; without one, bodies are held up to keepLimit alone. */
  budget?: MemoryBudget;
}

export class BodyTap {
  size = 0;
  // Made only once the body is too large to keep: a kept body is hashed at the end, if at all.
  private hash: Hash | undefined;
  private offThread: OffThreadHash | undefined;
  /** Settles once the recorded body has its digest (one hashed on the worker thread comes later). */
  digested: Promise<void> | undefined;
  private head = Buffer.alloc(0);
  private kept: HeldBytes | undefined;
  /** Memory taken from the budget (what holding the kept bytes costs) and not yet given back. */
  private budgeted = 0;
  /** Why a body the core would read whole is not kept. */
  private notKept: string | undefined;
  /** The same, for enforce mode's answer: a body it cannot read is refused (413, 503, 415). */
  unread: Unread | undefined;
  /** What was kept when keeping stopped, until `takeDropped` (a relay holding an answer passes it on). */
  private dropped: Buffer[] | undefined;
  /** Whoever reads this tap passes on what it held when it stops holding (else that is let go at once). */
  passesOnDropped = false;
  /**
   * Whoever reads this tap forwards the body from what it held (`held`, after `finish`): a body
   * gated in enforce mode, an answer held whole. Else the bytes are let go once read as text.
   */
  forwardsHeld = false;
  private readonly parts: MultipartPart[] = [];
  private parser: busboy.Busboy | undefined;
  private readonly type: string | undefined;

  /** @param offThread a request body: when large, it is hashed on the worker thread. */
  constructor(
    private readonly headers: IncomingHttpHeaders,
    private readonly options: TapOptions,
    offThread = false,
  ) {
    this.type = mediaType(headers['content-type']);
    if (this.type === 'multipart/form-data') this.startMultipart();
    // Uploads (PDF, images, multipart) are judged from their size, digest, first bytes and part
    // headers, all read as they pass: holding them would only cost memory.
    if (options.keepBinary || this.readWhole) this.kept = new HeldBytes();
    else if (offThread && offThreadHashing.enabled && Number(headers['content-length']) >= offThreadHashing.from)
      this.offThread = OffThreadHash.start();
    if (!this.kept && !this.offThread) this.hash = createHash('sha256');
  }

  /** The worker thread has enough of this body to hash: its reader should wait (`onceHashCaughtUp`). */
  get hashBehind(): boolean {
    return this.offThread?.behind === true;
  }

  onceHashCaughtUp(resume: () => void): void {
    if (this.offThread) this.offThread.onceCaughtUp(resume);
    else resume();
  }

  /** The core reads this body whole (or would, were it kept). */
  private get readWhole(): boolean {
    return !this.type || isTextualMediaType(this.type);
  }

  /** The body stopped being kept because the memory budget was spent. */
  get overBudget(): boolean {
    return this.unread === 'budget';
  }

  /** The body is still kept whole. */
  get keeping(): boolean {
    return this.kept !== undefined;
  }

  /** The bytes kept, as they came (one piece once the body was read): what a held body is forwarded from. */
  held(): Buffer[] {
    return this.kept?.all() ?? [];
  }

  /** What was kept before keeping stopped (once; the tap holds it no longer). */
  takeDropped(): Buffer[] {
    const dropped = this.dropped ?? [];
    this.dropped = undefined;
    return dropped;
  }

  /** Gives back what this body took from the budget (done when it is read; again is harmless). */
  release(): void {
    if (this.budgeted > 0) this.options.budget?.give(this.budgeted);
    this.budgeted = 0;
  }

  /** The exchange is over: a digest nobody asked for is not waited for on the worker thread. */
  close(): void {
    this.release();
    if (this.offThread && !this.digested) void this.offThread.digest();
    this.offThread = undefined;
  }

  private stopKeeping(unread: Unread, reason: string | undefined): void {
    const hash = createHash('sha256');
    const pieces = this.kept?.all() ?? [];
    for (const kept of pieces) hash.update(kept);
    this.hash = hash;
    this.kept = undefined;
    if (this.readWhole) this.unread = unread;
    this.notKept = reason;
    if (this.passesOnDropped) this.dropped = pieces;
    this.release();
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
    if (this.head.length < HEAD_BYTES)
      this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    if (this.kept) {
      const budget = this.options.budget;
      const cost = budget ? this.kept.costOf(chunk) : 0;
      if (this.kept.size + chunk.length > this.options.keepLimit) this.stopKeeping('too-large', undefined);
      else if (budget && !budget.take(cost)) this.stopKeeping('budget', budget.reason);
      else {
        this.budgeted += cost;
        this.kept.add(chunk);
      }
    }
    // Bytes after an early look at the body (finish, when the answer streams back before the
    // request has ended) are not part of the digest that look took; a digested hash takes no more.
    if (!this.finished) {
      this.hash?.update(chunk);
      this.offThread?.update(chunk);
    }
    this.parser?.write(chunk);
  }

  /** The body as `finish` read it, if it was read. */
  get read(): RecordedBody | undefined {
    return this.finished;
  }

  /** The body as seen, decoded (gzip, deflate, br) for validation when it was kept whole. */
  finish(contentEncoding?: string): RecordedBody {
    // Both the early (header-time) and the final judgement ask; the body is read once.
    if (this.finished) return this.finished;
    this.finished = this.readBody(contentEncoding);
    return this.finished;
  }

  private finished: RecordedBody | undefined;

  private readBody(contentEncoding?: string): RecordedBody {
    this.parser?.end();
    const body: RecordedBody = { size: this.size };
    if (this.size === 0) {
      body.text = '';
      return body;
    }
    const coded = contentEncoding !== undefined && contentEncoding !== 'identity';
    // Text that nobody forwards from the held bytes is read from their pieces, which are then let
    // go: joining them first would hold a large body twice over while it is read.
    if (this.kept && !this.forwardsHeld && !coded && this.readWhole) {
      const pieces = this.kept.all();
      this.kept = undefined;
      this.release();
      if (this.parts.length > 0) body.parts = this.parts;
      body.text = decodeTextOfPieces(pieces, this.headers['content-type']);
      return body;
    }
    // As it came on the wire, before any decoding: that is what the digest is of.
    const raw = this.kept?.whole();
    this.release();
    let whole: Buffer | undefined = raw;
    if (whole && coded) {
      try {
        whole = decodeContent(whole, contentEncoding, this.options.keepLimit);
        if (!whole) {
          body.skipped = `cannot decode ${contentEncoding}`;
          if (this.readWhole) this.unread = 'coding';
        }
      } catch (error) {
        whole = undefined;
        const large = decodedTooLarge(error);
        body.skipped = large
          ? `not validated: over ${this.options.keepLimit} bytes once decoded (${contentEncoding})`
          : `cannot decode ${contentEncoding}`;
        if (!large) body.codingError = codingErrorText(contentEncoding, error);
        if (this.readWhole) this.unread = large ? 'too-large' : 'coding';
      }
    }
    if (this.parts.length > 0) body.parts = this.parts;
    if (whole && this.readWhole) {
      // The size of the bytes the text was read from, so the core can tell what encoding they were in.
      body.size = whole.length;
      body.text = decodeText(whole, this.headers['content-type']);
      return body;
    }
    if (this.offThread) {
      // Filled in when the worker thread answers; named now, so the recorded fields keep their order.
      body.sha256 = '';
      this.digested = this.offThread.digest().then((hex) => {
        if (hex) body.sha256 = hex;
        else delete body.sha256;
      });
    } else body.sha256 = (this.hash ?? createHash('sha256').update(raw ?? Buffer.alloc(0))).digest('hex');
    if (whole && this.options.keepBinary) body.base64 = whole.toString('base64');
    else {
      body.headBase64 = this.head.toString('base64');
      if (!whole && this.readWhole && !body.skipped)
        body.skipped = this.notKept ?? `not validated: too large (over ${this.options.keepLimit} bytes)`;
    }
    return body;
  }
}
