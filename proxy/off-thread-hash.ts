import { Worker } from 'node:worker_threads';

// SHA-256 of large uploads on a worker thread. Hashing costs the proxy more CPU per megabyte than
// forwarding does; on the forwarding thread it would hold every chunk back until it is hashed.
// Bytes are copied into batches of BATCH_BYTES, each handed to the worker whole (transferred, not
// copied again); a body with too many batches unhashed asks its reader to wait (`behind`).

const BATCH_BYTES = 1024 * 1024;
/** Batches of one body the worker may have waiting before the body's reader is asked to pause. */
const MAX_WAITING = 4;
/** Batches the worker has hashed come back to be filled again: fresh memory costs page faults. */
const MAX_SPARE = 8;
const spare: ArrayBuffer[] = [];

// A worker from source text: it runs wherever the proxy does, from dist/ or from its sources.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', ({ id, bytes, length, end }) => {
  let hash = hashes.get(id);
  if (!hash) hashes.set(id, (hash = createHash('sha256')));
  if (bytes) hash.update(new Uint8Array(bytes, 0, length));
  if (end) {
    hashes.delete(id);
    parentPort.postMessage({ id, digest: hash.digest('hex') });
  } else parentPort.postMessage({ id, bytes }, [bytes]);
});
`;

interface Pending {
  waiting: number;
  caughtUp: (() => void) | undefined;
  digest: ((hex: string | undefined) => void) | undefined;
}

class HashWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  broken = false;

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    this.worker.on('message', (message: { id: number; digest?: string; bytes?: ArrayBuffer }) => this.heard(message));
    this.worker.on('error', () => this.lost());
    this.worker.on('exit', () => this.lost());
    // It keeps the process alive only while a body is being hashed, so that a stopping proxy
    // still records the digests it waits for. (After the listeners: adding a 'message' listener
    // takes a hold on the process again.)
    this.worker.unref();
  }

  open(): number {
    const id = this.nextId;
    this.nextId += 1;
    if (this.pending.size === 0) this.worker.ref();
    this.pending.set(id, { waiting: 0, caughtUp: undefined, digest: undefined });
    return id;
  }

  /** Hands a batch over (the buffer becomes the worker's); true when the body should wait. */
  send(id: number, batch: Buffer, length: number): boolean {
    const pending = this.pending.get(id);
    if (!pending || this.broken) return false;
    pending.waiting += 1;
    this.worker.postMessage({ id, bytes: batch.buffer, length }, [batch.buffer as ArrayBuffer]);
    return pending.waiting >= MAX_WAITING;
  }

  caughtUp(id: number, resume: () => void): void {
    const pending = this.pending.get(id);
    if (!pending || pending.waiting < MAX_WAITING) resume();
    else pending.caughtUp = resume;
  }

  digest(id: number, last: Buffer | undefined, length: number): Promise<string | undefined> {
    const pending = this.pending.get(id);
    if (!pending || this.broken) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      pending.digest = resolve;
      const transfer = last ? [last.buffer as ArrayBuffer] : [];
      this.worker.postMessage({ id, bytes: last?.buffer, length, end: true }, transfer);
    });
  }

  private heard({ id, digest, bytes }: { id: number; digest?: string; bytes?: ArrayBuffer }): void {
    if (bytes && spare.length < MAX_SPARE) spare.push(bytes);
    const pending = this.pending.get(id);
    if (!pending) return;
    if (digest !== undefined) {
      this.pending.delete(id);
      if (this.pending.size === 0) this.worker.unref();
      pending.digest?.(digest);
      return;
    }
    pending.waiting -= 1;
    if (pending.caughtUp && pending.waiting < MAX_WAITING) {
      const resume = pending.caughtUp;
      pending.caughtUp = undefined;
      resume();
    }
  }

  /** The worker is gone: bodies it was hashing get no digest, and none waits for it. */
  private lost(): void {
    if (this.broken) return;
    this.broken = true;
    for (const pending of this.pending.values()) {
      pending.caughtUp?.();
      pending.digest?.(undefined);
    }
    this.pending.clear();
  }
}

let shared: HashWorker | undefined;

function worker(): HashWorker | undefined {
  if (!shared || shared.broken) {
    try {
      shared = new HashWorker();
    } catch {
      return undefined;
    }
  }
  return shared;
}

/** One body's digest, computed on the worker thread as the body passes. */
export class OffThreadHash {
  private batch: Buffer | undefined;
  private filled = 0;
  /** The worker has enough of this body waiting: its reader should pause. */
  behind = false;

  private constructor(
    private readonly owner: HashWorker,
    private readonly id: number,
  ) {}

  /** A hash on the worker thread, or undefined when no worker can be had (hash in this thread then). */
  static start(): OffThreadHash | undefined {
    const owner = worker();
    return owner ? new OffThreadHash(owner, owner.open()) : undefined;
  }

  update(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (!this.batch) {
        // Its own memory, not a slice of node's pool: it is handed to the worker whole.
        const reused = spare.pop();
        this.batch = reused ? Buffer.from(reused) : Buffer.allocUnsafeSlow(BATCH_BYTES);
        this.filled = 0;
      }
      const copied = chunk.copy(this.batch, this.filled, at);
      this.filled += copied;
      at += copied;
      if (this.filled === BATCH_BYTES) {
        if (this.owner.send(this.id, this.batch, this.filled)) this.behind = true;
        this.batch = undefined;
      }
    }
  }

  /** Calls `resume` once the worker has caught up with this body. */
  onceCaughtUp(resume: () => void): void {
    this.owner.caughtUp(this.id, () => {
      this.behind = false;
      resume();
    });
  }

  /** The hex digest of everything updated, or undefined if the worker was lost on the way. */
  digest(): Promise<string | undefined> {
    const last = this.batch;
    this.batch = undefined;
    return this.owner.digest(this.id, last, last ? this.filled : 0);
  }
}
