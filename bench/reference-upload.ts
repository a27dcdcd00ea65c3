import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { MiB, processCpuMs, processMemory } from './process-memory.js';
import { startListening, stop } from './start-cli.js';

// Streams a generated PDF of `size` bytes to the reference service (`serve`): directly, through a
// bare http-proxy passthrough, or through print-conformance proxy. Measures throughput, the CPU
// time the forwarding process spends per MiB, and how much its peak memory (VmHWM) grows: uploads
// must be streamed, never held whole.

export type UploadWay = 'direct' | 'http-proxy' | 'proxy';

/** One MiB of filler, sent again and again: the client's own cost stays out of the measure. */
const FILLER = Buffer.alloc(MiB, 0x20);

function pdfStream(size: number): Readable {
  const first = Buffer.alloc(MiB, 0x20);
  Buffer.from('%PDF-1.7\n').copy(first);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const n = Math.min(MiB, size - sent);
      // Only the first chunk carries the magic bytes; the rest is filler.
      this.push((sent === 0 ? first : FILLER).subarray(0, n));
      sent += n;
    },
  });
}

async function startBare(target: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'bare-http-proxy.mjs'), target], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout?.setEncoding('utf8');
  const [line] = (await once(child.stdout!, 'data')) as [string];
  const url = /listening on (\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`http-proxy did not start: ${line}`);
  return { child, url };
}

/** The upload the throughput and memory targets are held to (bench/targets.ts): 1 GiB, streamed. */
export const UPLOAD_SIZE = 1024 * MiB;

export async function benchReferenceUpload(size = UPLOAD_SIZE, way: UploadWay = 'direct') {
  const service = await startListening(['serve', '--port', '0']);
  const between =
    way === 'proxy'
      ? await startListening(['proxy', '--target', service.url, '--summary-interval', '0'])
      : way === 'http-proxy'
        ? await startBare(service.url)
        : undefined;
  // The process whose memory and CPU count: the one in between when there is one, else the service.
  const child = between?.child ?? service.child;
  const url = between?.url ?? service.url;
  const upload = async (bytes: number) => {
    const order = await request(`${url}orders`, { method: 'POST' });
    const handedOut = ((await order.body.json()) as { items: { files: { content: { uploadUrl: string } } }[] })
      .items[0]!.files.content.uploadUrl;
    // The service names its own address, which only print-conformance proxy rewrites: the upload
    // goes to the way being measured whatever it says.
    const { pathname, search } = new URL(handedOut);
    const uploadUrl = `${url}${pathname.replace(/^.*?\/files\//, 'files/')}${search}`;
    const started = performance.now();
    const cpuBefore = processCpuMs(child.pid!);
    const answer = await request(uploadUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', 'content-length': String(bytes) },
      body: pdfStream(bytes),
    });
    const text = await answer.body.text();
    if (answer.statusCode !== 200) throw new Error(`upload answered ${answer.statusCode}: ${text}`);
    return { seconds: (performance.now() - started) / 1000, cpuMs: processCpuMs(child.pid!) - cpuBefore };
  };
  try {
    // The first upload of a fresh process costs a fixed amount of memory (compiled code, first
    // buffers) whatever its size; a 64 MiB warm-up takes it, so the measured upload shows what
    // grows with size. Both growths are reported.
    const fresh = processMemory(child.pid!);
    await upload(64 * MiB);
    const before = processMemory(child.pid!);
    const { seconds, cpuMs } = await upload(size);
    const after = processMemory(child.pid!);
    return {
      way,
      sizeMiB: size / MiB,
      seconds: Number(seconds.toFixed(2)),
      throughputMiBs: Number((size / MiB / seconds).toFixed(1)),
      cpuMsPerMiB: Number((cpuMs / (size / MiB)).toFixed(2)),
      peakFreshMiB: Number((fresh.hwm / MiB).toFixed(1)),
      peakBeforeMiB: Number((before.hwm / MiB).toFixed(1)),
      peakAfterMiB: Number((after.hwm / MiB).toFixed(1)),
      warmUpGrowthMiB: Number(((before.hwm - fresh.hwm) / MiB).toFixed(1)),
      peakGrowthMiB: Number(((after.hwm - before.hwm) / MiB).toFixed(1)),
    };
  } finally {
    if (between) await stop(between.child);
    await stop(service.child);
  }
}
