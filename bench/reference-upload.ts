import { Readable } from 'node:stream';
import { request } from 'undici';
import { MiB, processMemory } from './process-memory.js';
import { startListening, stop } from './start-cli.js';

// Streams a generated PDF of `size` bytes to the reference service (`serve`), directly or through
// the proxy, and measures throughput and how much the measured process's peak memory (VmHWM) grows:
// uploads must be streamed, never held whole.

function pdfStream(size: number): Readable {
  const chunk = Buffer.alloc(MiB, 0x20);
  Buffer.from('%PDF-1.7\n').copy(chunk);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const n = Math.min(chunk.length, size - sent);
      // Only the first chunk carries the magic bytes; the rest is filler.
      this.push(sent === 0 ? chunk.subarray(0, n) : Buffer.alloc(n, 0x20));
      sent += n;
    },
  });
}

export async function benchReferenceUpload(size = 1024 * MiB, viaProxy = false) {
  const service = await startListening(['serve', '--port', '0']);
  const proxy = viaProxy
    ? await startListening(['proxy', '--target', service.url, '--summary-interval', '0'])
    : undefined;
  // The process whose memory counts: the proxy when there is one, else the service.
  const child = proxy?.child ?? service.child;
  const url = proxy?.url ?? service.url;
  const upload = async (bytes: number) => {
    const order = await request(`${url}orders`, { method: 'POST' });
    const uploadUrl = ((await order.body.json()) as { items: { files: { content: { uploadUrl: string } } }[] })
      .items[0]!.files.content.uploadUrl;
    const started = performance.now();
    const answer = await request(uploadUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', 'content-length': String(bytes) },
      body: pdfStream(bytes),
    });
    const text = await answer.body.text();
    if (answer.statusCode !== 200) throw new Error(`upload answered ${answer.statusCode}: ${text}`);
    return (performance.now() - started) / 1000;
  };
  try {
    // The first upload of a fresh process costs a fixed amount of memory (compiled code, first
    // buffers) whatever its size; a 64 MiB warm-up takes it, so the measured upload shows what
    // grows with size. Both growths are reported.
    const fresh = processMemory(child.pid!);
    await upload(64 * MiB);
    const before = processMemory(child.pid!);
    const seconds = await upload(size);
    const after = processMemory(child.pid!);
    return {
      sizeMiB: size / MiB,
      seconds: Number(seconds.toFixed(2)),
      throughputMiBs: Number((size / MiB / seconds).toFixed(1)),
      peakFreshMiB: Number((fresh.hwm / MiB).toFixed(1)),
      peakBeforeMiB: Number((before.hwm / MiB).toFixed(1)),
      peakAfterMiB: Number((after.hwm / MiB).toFixed(1)),
      warmUpGrowthMiB: Number(((before.hwm - fresh.hwm) / MiB).toFixed(1)),
      peakGrowthMiB: Number(((after.hwm - before.hwm) / MiB).toFixed(1)),
    };
  } finally {
    if (proxy) await stop(proxy.child);
    await stop(service.child);
  }
}
