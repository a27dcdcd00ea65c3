import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { mediaType } from '../validate/exchange.js';
import { MAGIC_LENGTH } from '../validate/magic.js';
import { HttpError } from './http-error.js';
import { opaqueCode } from './store.js';

// Uploads are streamed to a file in the service's temporary folder, never held whole in memory:
// print files of hundreds of megabytes are normal. Only the first bytes are kept, for the type.

export interface ReceivedFile {
  path: string;
  size: number;
  head: Buffer;
  sha256: string;
  declaredType?: string;
  /** The file name a form gave its file part. */
  fileName?: string;
}

/** Counts, hashes and keeps the first bytes of what flows through; stops past `limit`. */
class Meter extends Transform {
  size = 0;
  head = Buffer.alloc(0);
  readonly hash = createHash('sha256');

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void) {
    this.size += chunk.length;
    if (this.size > this.limit) {
      done(new HttpError(413, `upload is over the ${this.limit}-byte limit`, ['Split or compress the file.']));
      return;
    }
    if (this.head.length < MAGIC_LENGTH) this.head = Buffer.concat([this.head, chunk.subarray(0, MAGIC_LENGTH)]);
    this.hash.update(chunk);
    done(null, chunk);
  }
}

/** Writes `source` to a new file of `folder`; an upload that does not complete leaves no file. */
async function store(source: Readable, folder: string, limit: number): Promise<ReceivedFile> {
  const path = join(folder, opaqueCode(16));
  const meter = new Meter(limit);
  try {
    // The pipeline closes the file however it ends, a client hanging up included.
    await pipeline(source, meter, createWriteStream(path));
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return { path, size: meter.size, head: meter.head.subarray(0, MAGIC_LENGTH), sha256: meter.hash.digest('hex') };
}

export async function receiveRawUpload(request: IncomingMessage, folder: string, limit: number): Promise<ReceivedFile> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw new HttpError(413, `upload of ${declared} bytes is over the ${limit}-byte limit`, [
      'Split or compress the file.',
    ]);
  }
  return store(request, folder, limit);
}

/**
 * Receives the file part of a multipart/form-data upload. The part's own Content-Type must be one
 * of `allowed` (checked from its headers, before its bytes are read); other fields are ignored.
 */
export function receiveMultipartUpload(
  request: IncomingMessage,
  folder: string,
  limit: number,
  allowed: string[],
  variant: {
    firstPartIsFile?: boolean;
    failsOnNonAsciiFilename?: boolean;
    fileField?: string;
    typeOf?: (declared: string, fileName: string | undefined) => string;
  } = {},
): Promise<ReceivedFile> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, limits: { files: 1, fileSize: limit + 1, fields: 50, parts: 60 } });
    } catch (error) {
      reject(new HttpError(400, `cannot read the multipart body: ${(error as Error).message}`));
      return;
    }
    let stored: Promise<ReceivedFile> | undefined;
    let refused: HttpError | undefined;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      // A file already written for this body goes too: the upload as a whole was refused.
      stored?.then((file) => rm(file.path, { force: true })).catch(() => {});
      reject(error);
    };
    let parts = 0;
    // A variant that takes the first part for the file finds no file type in a text field.
    parser.on('field', () => {
      parts += 1;
      if (variant.firstPartIsFile && parts === 1)
        refused = new HttpError(400, 'the file is not a PDF, PNG or JPEG', [
          'Check the file; its first bytes name no supported type.',
        ]);
    });
    parser.on('file', (name, stream, info) => {
      parts += 1;
      // A variant whose form reader expects the file under one field name throws on another.
      if (variant.fileField !== undefined && name !== variant.fileField) {
        stream.resume();
        fail(new Error(`unexpected field ${name}`));
        return;
      }
      // A variant whose form reader throws on a file name outside ASCII, as some do.
      if (variant.failsOnNonAsciiFilename && /[^\x20-\x7e]/.test(info.filename ?? '')) {
        stream.resume();
        fail(new Error('file name is not ASCII'));
        return;
      }
      const read = mediaType(info.mimeType);
      const type = read && variant.typeOf ? variant.typeOf(read, info.filename) : read;
      if (!type || !allowed.includes(type)) {
        refused = new HttpError(415, `file part type ${info.mimeType} is not supported`, [
          `Send one of: ${allowed.join(', ')}.`,
        ]);
        stream.resume();
        return;
      }
      stored = store(stream, folder, limit).then((file) => ({
        ...file,
        declaredType: type,
        ...(info.filename ? { fileName: info.filename } : {}),
      }));
      // Past the limit the part is cut off: answer at once rather than parse the rest of the body.
      stored.catch((error) => {
        request.unpipe(parser);
        request.resume();
        fail(error);
      });
    });
    parser.on('error', (error: Error) => fail(new HttpError(400, `cannot read the multipart body: ${error.message}`)));
    parser.on('close', () => {
      if (refused) fail(refused);
      else if (!stored)
        fail(new HttpError(400, 'the multipart body has no file part', ['Add a part with a filename.']));
      else
        stored.then((file) => {
          settled = true;
          resolve(file);
        }, fail);
    });
    // A client that hangs up mid-body ends nothing by itself: the parser, and with it the part
    // being written, are destroyed, so that the file is closed and removed.
    const interrupted = (error?: Error) => {
      if (request.complete) return;
      const reason = new HttpError(400, `upload interrupted${error ? `: ${error.message}` : ''}`);
      parser.destroy(reason);
      fail(reason);
    };
    request.on('error', interrupted);
    request.on('close', () => interrupted());
    request.pipe(parser);
  });
}
