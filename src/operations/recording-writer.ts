import {
  closeSync,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  stat,
} from 'node:fs';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { fileProblem } from '../findings/file-problem.js';
import { openOutputFile } from '../output/output-file.js';
import { lockRecording, type RecordingLock } from './recording-lock.js';
import { rotatedFiles, rotatedName } from './rotated-names.js';
import { recordingFailed, recordingRotated, recordingRotateFailed } from './session-events.js';

// The NDJSON recording of a long session. Its surroundings may fail: a full disk, a folder removed,
// a pipe whose reader stalls. None of them stops the forwarding: the recording then stops being
// written, from the first exchange not known to be written, and says so once. What waits to be
// written is bounded, never growing with the traffic. Lines are encoded into reused buffers and
// each batch goes in one write (see proxy/batched-writes.ts for why).

/** Bytes of one batch. */
const BATCH_BYTES = 256 * 1024;
/** Most bytes one UTF-16 code unit takes in UTF-8. */
const MAX_BYTES_PER_UNIT = 3;
/** Most bytes waiting for a file or pipe that does not keep up; past it the recording stops. */
export const MAX_WAITING_BYTES = 64 * 1024 * 1024;
/** How often the file is checked to still be where it was (a folder removed, the file replaced). */
const WATCH_MS = 1000;
/** How often a FIFO with no reader yet is tried again. */
const FIFO_RETRY_MS = 100;
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
/** How long the end of the session waits for the last lines to be taken. */
const CLOSE_WAIT_MS = 5000;

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

export interface Rotation {
  /** Rotate once the file holds this many bytes. */
  sizeBytes?: number;
  /** Rotate this often. */
  everyMs?: number;
  gzip?: boolean;
  /** Keep only the newest N rotated files. */
  keep?: number;
}

export interface RecordingWriterOptions {
  rotation?: Rotation;
  /** Told once when the recording stops being written. */
  failed?: (problem: string) => void;
  /** Most bytes waiting to be written (default MAX_WAITING_BYTES). */
  maxWaitingBytes?: number;
  /** Told of the bytes handed to the file, as they go (the recording's metric). */
  wrote?: (bytes: number) => void;
}

/** The last byte of a file that has some, to know whether a torn line ends it. */
function lastByte(file: string, size: number): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | NO_FOLLOW);
    const byte = Buffer.alloc(1);
    return readSync(fd, byte, 0, 1, size - 1) === 1 ? byte[0] : undefined;
  } catch {
    // Unreadable (write-only for this user): a fresh line costs nothing.
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export class RecordingWriter {
  private stream: Writable | undefined;
  private batch: Buffer | undefined;
  private used = 0;
  private readonly spare: Buffer[] = [];
  /** Batches kept while a FIFO has no reader yet. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** Exchanges appended, and the last one whose line is written. */
  private seq = 0;
  private batchSeq = 0;
  private writtenSeq = 0;
  /** Bytes in the current file (rotation by size). */
  private bytes = 0;
  private fileStarted = new Date();
  private identity: { dev: number; ino: number } | undefined;
  private watch: NodeJS.Timeout | undefined;
  private rotateTimer: NodeJS.Timeout | undefined;
  private fifoTimer: NodeJS.Timeout | undefined;
  private readonly lock: RecordingLock | undefined;
  private readonly regular: boolean;
  private readonly background = new Set<Promise<void>>();
  private readonly maxWaiting: number;
  private lastRotated: string | undefined;
  /** Why the recording stopped being written, once it did. */
  failure: string | undefined;

  constructor(
    readonly file: string,
    private readonly options: RecordingWriterOptions = {},
  ) {
    this.maxWaiting = options.maxWaitingBytes ?? MAX_WAITING_BYTES;
    // A file that is not there yet is made when opened; a link is refused when opened.
    let kind: 'fifo' | 'file' | 'other' = 'file';
    try {
      const stat = lstatSync(file);
      kind = stat.isFIFO() ? 'fifo' : stat.isFile() ? 'file' : 'other';
    } catch {
      // Not there yet.
    }
    this.regular = kind === 'file';
    if (kind === 'fifo') {
      // Opening a FIFO for writing waits for a reader: tried without waiting until one comes.
      this.openFifo();
      return;
    }
    this.lock = this.regular ? lockRecording(file) : undefined;
    try {
      this.stream = this.openFile();
    } catch (error) {
      this.lock?.release();
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EUNSAFE') throw error;
      throw Object.assign(new Error(`${file} is ${fileProblem(error)}`), { code });
    }
    const every = options.rotation?.everyMs;
    if (this.regular && every) this.rotateTimer = setInterval(() => this.rotate(), every).unref();
    if (this.regular) this.watch = setInterval(() => this.checkStillThere(), WATCH_MS).unref();
  }

  /** Opens (appending) the file, on a fresh line when a session cut short left a torn one. */
  private openFile(): Writable {
    const fd = openOutputFile(this.file, 'append');
    const stat = fstatSync(fd);
    this.identity = { dev: stat.dev, ino: stat.ino };
    this.bytes = stat.size;
    this.fileStarted = new Date();
    const stream = createWriteStream(this.file, { fd });
    if (stat.isFile() && stat.size > 0 && lastByte(this.file, stat.size) !== 0x0a) {
      stream.write('\n');
      this.bytes += 1;
    }
    stream.on('error', (error) => this.fail(`cannot write it: ${fileProblem(error)}`));
    return stream;
  }

  private openFifo(): void {
    let fd: number;
    try {
      fd = openSync(this.file, constants.O_WRONLY | constants.O_NONBLOCK | NO_FOLLOW);
    } catch (error) {
      // ENXIO: no reader yet.
      if ((error as NodeJS.ErrnoException).code === 'ENXIO') {
        if (!this.failure) this.fifoTimer = setTimeout(() => this.openFifo(), FIFO_RETRY_MS).unref();
        return;
      }
      this.fail(`cannot open it: ${fileProblem(error)}`);
      return;
    }
    const socket = new Socket({ fd, readable: false, writable: true });
    socket.on('error', (error) => this.fail(`cannot write it: ${fileProblem(error)}`));
    this.stream = socket;
    for (const batch of this.held.splice(0)) this.write(batch, this.batchSeq);
    this.heldBytes = 0;
  }

  /** Appends one exchange's line (a line feed is added). */
  append(line: string): void {
    this.seq += 1;
    if (this.failure) return;
    const most = line.length * MAX_BYTES_PER_UNIT + 1;
    if (this.batch && this.used + most > this.batch.length) this.flush();
    if (most > BATCH_BYTES) {
      // Larger than any batch: a buffer of its own.
      this.batchSeq = this.seq;
      this.write(Buffer.from(`${line}\n`), this.seq);
      return;
    }
    this.batch ??= this.spare.pop() ?? Buffer.allocUnsafeSlow(BATCH_BYTES);
    this.used += this.batch.write(line, this.used);
    this.batch[this.used] = 0x0a;
    this.used += 1;
    this.batchSeq = this.seq;
  }

  /** Bytes waiting to be written. */
  get waiting(): number {
    return this.used;
  }

  /** What waits goes to the file now; the file is rotated when it is due (not when it closes). */
  flush(rotate = true): void {
    const batch = this.batch;
    if (!batch || this.used === 0 || this.failure) return;
    const used = this.used;
    this.batch = undefined;
    this.used = 0;
    this.write(batch.subarray(0, used), this.batchSeq, batch);
    const size = this.options.rotation?.sizeBytes;
    if (rotate && size && this.regular && this.bytes >= size) this.rotate();
  }

  private write(bytes: Buffer, lastSeq: number, reuse?: Buffer): void {
    const stream = this.stream;
    if (!stream) {
      // A FIFO with no reader yet: held, within the bound.
      this.held.push(reuse ? Buffer.from(bytes) : bytes);
      this.heldBytes += bytes.length;
      if (reuse && this.spare.length < 4) this.spare.push(reuse);
      if (this.heldBytes > this.maxWaiting) this.fail(`no reader opened it while ${mib(this.maxWaiting)} waited`);
      return;
    }
    // What waits already says whether the reader keeps up: past the bound it does not.
    if (stream.writableLength > this.maxWaiting) {
      this.fail(`it does not keep up: ${mib(this.maxWaiting)} wait to be written`);
      return;
    }
    this.bytes += bytes.length;
    this.options.wrote?.(bytes.length);
    stream.write(bytes, (error) => {
      // Told at once: the 'error' event comes later, maybe after the session has ended.
      if (error) this.fail(`cannot write it: ${fileProblem(error)}`);
      else if (lastSeq > this.writtenSeq) this.writtenSeq = lastSeq;
      if (reuse && this.spare.length < 4) this.spare.push(reuse);
    });
  }

  private fail(problem: string): void {
    if (this.failure) return;
    this.failure = `${this.file}: ${problem}`;
    this.stopTimers();
    this.batch = undefined;
    this.used = 0;
    this.held = [];
    this.stream?.destroy();
    recordingFailed({ file: this.file, fromSeq: this.writtenSeq + 1, reason: problem });
    this.options.failed?.(this.failure);
  }

  private stopTimers(): void {
    clearInterval(this.watch);
    clearInterval(this.rotateTimer);
    clearTimeout(this.fifoTimer);
  }

  /** A folder removed, the file moved or replaced: what is written would reach no one. */
  private checkStillThere(): void {
    const identity = this.identity;
    if (!identity || this.failure) return;
    stat(this.file, (error, now) => {
      if (this.failure || identity !== this.identity) return;
      if (error) this.fail(`it is gone (${fileProblem(error)})`);
      else if (now.dev !== identity.dev || now.ino !== identity.ino) this.fail('it was replaced by another file');
    });
  }

  /** Closes the file on a whole line, renames it with its start time and begins a new one. */
  private rotate(): void {
    if (this.failure || !this.stream) return;
    // A file with nothing in it since it began is not rotated.
    if (this.bytes === 0) return;
    const pending = this.batch;
    if (pending && this.used > 0) {
      this.batch = undefined;
      const used = this.used;
      this.used = 0;
      this.write(pending.subarray(0, used), this.batchSeq, pending);
    }
    const old = this.stream;
    let rotatedTo: string;
    try {
      rotatedTo = rotatedName(this.file, this.fileStarted, existsSync, this.lastRotated);
      this.lastRotated = rotatedTo;
      // The old stream's writes still reach the renamed file: it is open.
      renameSync(this.file, rotatedTo);
    } catch (error) {
      recordingRotateFailed({ file: this.file, reason: `cannot rename it: ${fileProblem(error)}` });
      return;
    }
    try {
      this.stream = this.openFile();
    } catch (error) {
      this.stream = undefined;
      old.end();
      this.fail(`cannot begin it again after rotating: ${fileProblem(error)}`);
      return;
    }
    recordingRotated({ file: this.file, rotatedTo, exchanges: this.seq });
    const done = this.afterRotation(old, rotatedTo).finally(() => this.background.delete(done));
    this.background.add(done);
  }

  /** Off the forwarding path: the old file ends, is compressed if asked, and old ones are pruned. */
  private async afterRotation(old: Writable, rotatedTo: string): Promise<void> {
    await new Promise<void>((resolve) => {
      old.once('error', () => resolve());
      old.end(() => resolve());
    });
    const rotation = this.options.rotation ?? {};
    if (rotation.gzip) {
      const compressed = `${rotatedTo}.gz`;
      const temporary = `${compressed}.tmp`;
      try {
        await pipeline(createReadStream(rotatedTo), createGzip(), createWriteStream(temporary, { flags: 'wx' }));
        renameSync(temporary, compressed);
        rmSync(rotatedTo, { force: true });
      } catch (error) {
        rmSync(temporary, { force: true });
        recordingRotateFailed({ file: this.file, reason: `cannot compress ${rotatedTo}: ${fileProblem(error)}` });
      }
    }
    if (rotation.keep !== undefined) {
      const files = rotatedFiles(this.file);
      for (const file of files.slice(0, Math.max(0, files.length - rotation.keep))) {
        try {
          rmSync(file, { force: true });
        } catch (error) {
          recordingRotateFailed({ file: this.file, reason: `cannot delete ${file}: ${fileProblem(error)}` });
        }
      }
    }
  }

  /** Writes what waits and closes the file; a recording that never got a reader is incomplete. */
  async close(): Promise<void> {
    this.flush(false);
    this.stopTimers();
    if (!this.stream && !this.failure) this.fail('no reader ever opened it');
    const stream = this.stream;
    if (stream?.errored && !this.failure) this.fail(`cannot write it: ${fileProblem(stream.errored)}`);
    if (stream && !this.failure && !stream.destroyed) {
      let timer: NodeJS.Timeout | undefined;
      const ended = await new Promise<boolean>((resolve) => {
        stream.once('error', () => resolve(true));
        stream.once('close', () => resolve(true));
        // The end's callback may hear of a failed write before the 'error' event comes.
        stream.end((error?: Error | null) => {
          if (error) this.fail(`cannot write it: ${fileProblem(error)}`);
          resolve(true);
        });
        // A reader that stalls for good cannot hold the session's end.
        timer = setTimeout(() => resolve(false), CLOSE_WAIT_MS);
      });
      clearTimeout(timer);
      if (!ended) this.fail(`it does not keep up: ${stream.writableLength} bytes could not be written by the end`);
    }
    await Promise.all(this.background);
    this.lock?.release();
  }
}
