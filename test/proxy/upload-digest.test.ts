import { createHash } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { BodyTap, offThreadHashing } from '../../proxy/body-tap.js';
import { OffThreadHash } from '../../proxy/off-thread-hash.js';
import { Upstream } from '../../proxy/upstream.js';
import { proxiedService } from '../helpers/proxy-fixture.js';

// Uploads are hashed as they pass: small ones in the proxy's thread, large ones on a worker thread
// so that hashing never holds forwarding. Either way the recording has the SHA-256 of the bytes.

const MiB = 1024 * 1024;

function pdf(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let index = 0; index < size; index += 1) bytes[index] = (index * 31 + (index >> 12)) & 0xff;
  Buffer.from('%PDF-1.7\n').copy(bytes);
  return bytes;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The content upload URL of an order placed through the proxy. */
async function uploadUrlOfNewOrder(proxyUrl: string): Promise<string> {
  const order = (await (await request(`${proxyUrl}orders`, { method: 'POST' })).body.json()) as {
    items: { files: { content: { uploadUrl: string } } }[];
  };
  return order.items[0]?.files.content.uploadUrl as string;
}

/** Uploads a PDF to the URL and expects it taken. */
async function uploadThrough(uploadUrl: string, bytes: Buffer): Promise<void> {
  const answer = await request(uploadUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/pdf', 'content-length': String(bytes.length) },
    body: bytes,
  });
  expect(answer.statusCode).toBe(200);
  await answer.body.dump();
}

describe('the digest of an upload', () => {
  it.each([true, false])(
    'is recorded for small and large uploads alike, in its place among the fields (worker thread: %s)',
    async (enabled) => {
      const before = offThreadHashing.enabled;
      offThreadHashing.enabled = enabled;
      const setup = await proxiedService();
      const sizes = [3 * MiB, 12 * MiB + 12345];
      const sent = sizes.map(pdf);
      try {
        for (const bytes of sent) await uploadThrough(await uploadUrlOfNewOrder(setup.proxy.url), bytes);
        const uploads = (await setup.recorded()).filter((e) => e.request.url.includes('/files/'));
        expect(uploads.map((e) => e.request.body?.size)).toEqual(sizes);
        expect(uploads.map((e) => e.request.body?.sha256)).toEqual(sent.map(sha256));
        for (const upload of uploads)
          expect(Object.keys(upload.request.body ?? {})).toEqual(['size', 'sha256', 'headBase64']);
      } finally {
        offThreadHashing.enabled = before;
        await setup.dispose();
      }
    },
  );

  it('writes each piece of an upload to the target before the tap hashes it', async () => {
    const before = offThreadHashing.enabled;
    offThreadHashing.enabled = false;
    const seen: string[] = [];
    const write = Upstream.prototype.write;
    const push = BodyTap.prototype.push;
    const writes = vi.spyOn(Upstream.prototype, 'write').mockImplementation(function (this: Upstream, ...pieces) {
      seen.push(`write ${pieces.reduce((sum, piece) => sum + piece.length, 0)}`);
      return write.apply(this, pieces);
    });
    const pushes = vi.spyOn(BodyTap.prototype, 'push').mockImplementation(function (this: BodyTap, chunk) {
      seen.push(`tap ${chunk.length}`);
      push.call(this, chunk);
    });
    const setup = await proxiedService();
    try {
      const bytes = pdf(4 * MiB);
      const uploadUrl = await uploadUrlOfNewOrder(setup.proxy.url);
      seen.length = 0;
      await uploadThrough(uploadUrl, bytes);
      // The request's pieces, each written then seen by the tap; the answer's tap comes after them.
      const written = seen.filter((step) => step.startsWith('write'));
      const pieces = seen.slice(0, written.length * 2);
      expect(pieces).toEqual(written.flatMap((step) => [step, step.replace('write', 'tap')]));
      expect(written.reduce((sum, step) => sum + Number(step.split(' ')[1]), 0)).toBe(bytes.length);
      const [upload] = (await setup.recorded()).filter((e) => e.request.url.includes('/files/'));
      expect(upload?.request.body?.sha256).toBe(sha256(bytes));
    } finally {
      writes.mockRestore();
      pushes.mockRestore();
      offThreadHashing.enabled = before;
      await setup.dispose();
    }
  });

  it('on the worker thread is that of every byte, in order, however they are cut', async () => {
    const hash = OffThreadHash.start();
    expect(hash).toBeDefined();
    const bytes = pdf(5 * MiB + 777);
    // Pieces of odd sizes, across batch boundaries; the reader waits whenever the worker is behind.
    for (let at = 0, step = 1; at < bytes.length; at += step, step = ((step * 7 + 13) % 300_000) + 1) {
      hash?.update(bytes.subarray(at, at + step));
      if (hash?.behind) await new Promise<void>((resume) => hash.onceCaughtUp(resume));
    }
    expect(await hash?.digest()).toBe(sha256(bytes));
  });
});
