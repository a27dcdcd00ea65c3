import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BATCH_BYTES, BatchedWrites } from '../../proxy/batched-writes.js';

const folder = mkdtempSync(join(tmpdir(), 'print-conformance-batches-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function written(name: string, write: (batches: BatchedWrites) => void): Promise<string> {
  const file = join(folder, name);
  const stream = createWriteStream(file);
  const batches = new BatchedWrites(stream);
  write(batches);
  batches.flush();
  stream.end();
  await once(stream, 'finish');
  return readFileSync(file, 'utf8');
}

describe('batched writes to a file', () => {
  it('keeps every text whole and in order while its buffers are filled again (multi-byte text, texts larger than a batch)', async () => {
    const texts = Array.from({ length: 5000 }, (_, index) =>
      index % 997 === 0 ? `${index}:${'é€😀'.repeat(BATCH_BYTES / 4)}` : `${index}:${'aé€😀'.repeat(index % 50)}`,
    );
    // Many batches are written while others are still being filled: a buffer reused too early would show.
    const text = await written('lines.ndjson', (batches) => {
      for (const line of texts) batches.append(line, true);
    });
    expect(text).toBe(`${texts.join('\n')}\n`);
  });

  it('writes texts without a line feed as they are', async () => {
    const text = await written('har.json', (batches) => {
      batches.append('[');
      batches.append('1');
      batches.append(',2]');
    });
    expect(text).toBe('[1,2]');
  });

  it('takes nothing more once its file broke, and does not throw', async () => {
    const stream = createWriteStream(join(folder, 'broken.ndjson'));
    const closed = new Promise<void>((resolve) => stream.on('close', () => resolve()));
    stream.on('error', () => {});
    stream.destroy(new Error('disk full'));
    await closed;
    const batches = new BatchedWrites(stream);
    expect(() => {
      batches.append('line', true);
      batches.flush();
    }).not.toThrow();
    expect(batches.waiting).toBe(0);
  });
});
