import { describe, expect, it } from 'vitest';
import { eachLine, LineBatchBuilder } from '../../src/recording/line-batch.js';

// Lines travel to worker threads as bytes in batches: each comes out as the text it was, with
// where it was read and whether its judge only learns from it.

describe('a batch of lines', () => {
  it('gives back each line, its place and its role, a line larger than the batch included', () => {
    const builder = new LineBatchBuilder(16);
    const source = Buffer.from('ab\n{"é":"€"}\n');
    builder.add(source, 0, 2, { file: 0, line: 1 }, false);
    builder.add(source, 3, source.length - 1, { file: 1, line: 7 }, true);
    expect(builder.fits(1)).toBe(true);
    expect(builder.full).toBe(false);
    const long = Buffer.from('x'.repeat(40));
    expect(builder.fits(long.length)).toBe(false);
    const { batch, transfer } = builder.take();
    expect(transfer).toContain(batch.bytes.buffer);
    expect(builder.count).toBe(0);
    builder.add(long, 0, long.length, { file: 2, line: 3 }, false);
    expect(builder.full).toBe(true);
    const seen: unknown[] = [];
    for (const taken of [batch, builder.take().batch])
      eachLine(taken, (text, at, learnOnly) => seen.push({ text, at, learnOnly }));
    expect(seen).toEqual([
      { text: 'ab', at: { file: 0, line: 1 }, learnOnly: false },
      { text: '{"é":"€"}', at: { file: 1, line: 7 }, learnOnly: true },
      { text: 'x'.repeat(40), at: { file: 2, line: 3 }, learnOnly: false },
    ]);
  });
});
