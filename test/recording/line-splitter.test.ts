import { afterEach, describe, expect, it, vi } from 'vitest';
import { type LineBatch, LineSplitter } from '../../src/recording/line-splitter.js';

// NDJSON recordings are split into lines from read buffers of any size, one line of hundreds of
// megabytes included: every line comes out whole, and the work grows with the bytes, not with
// the bytes times the buffers a line spans.

function split(chunks: Buffer[], splitter = new LineSplitter()): LineBatch {
  const all: LineBatch = { lines: [], numbers: [], warnings: [] };
  for (const batch of [...chunks.map((chunk) => splitter.push(chunk)), splitter.end()]) {
    all.lines.push(...batch.lines);
    all.numbers.push(...batch.numbers);
    all.warnings.push(...batch.warnings);
  }
  return all;
}

/** The bytes of `text` cut every `size` bytes, through multi-byte characters too. */
const cut = (text: string, size: number) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
};

afterEach(() => vi.restoreAllMocks());

describe('LineSplitter', () => {
  const text = '{"a":"é€😀"}\r\n\n   \n{"b":2}\n{"c":"ü"}\n\n{"d":"no newline at the end"}';

  it('gives the non-blank lines with their numbers, however the bytes are cut', () => {
    for (const size of [1, 2, 3, 5, 7, 64, 1024]) {
      const { lines, numbers, warnings } = split(cut(text, size));
      expect(lines).toEqual(['{"a":"é€😀"}', '{"b":2}', '{"c":"ü"}', '{"d":"no newline at the end"}']);
      expect(numbers).toEqual([1, 4, 5, 7]);
      expect(warnings).toEqual([]);
    }
  });

  it('keeps a line spread over ten thousand buffers whole, searching each byte once and joining the buffers never', () => {
    const piece = Buffer.from('x'.repeat(100));
    const chunks = [
      Buffer.from('{"first":1}\n{"long":"'),
      ...Array.from({ length: 10_000 }, () => piece),
      Buffer.from('"}\n{"last":1}\n'),
    ];
    const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const indexOf = vi.spyOn(Buffer.prototype, 'indexOf');
    const concat = vi.spyOn(Buffer, 'concat');
    const { lines, numbers } = split(chunks);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe(`{"long":"${'x'.repeat(1_000_000)}"}`);
    expect(numbers).toEqual([1, 2, 3]);
    // Bytes searched for a newline: each from where a search started to where it stopped.
    const searched = indexOf.mock.calls.reduce((sum, call, index) => {
      const found = indexOf.mock.results[index]?.value as number;
      const stop = found >= 0 ? found + 1 : (indexOf.mock.contexts[index] as Buffer).length;
      return sum + stop - Number(call[1] ?? 0);
    }, 0);
    expect(searched).toBeLessThanOrEqual(total);
    const copied = concat.mock.calls.reduce((sum, [list]) => sum + list.reduce((s, b) => s + b.length, 0), 0);
    expect(copied).toBeLessThanOrEqual(total);
  });

  it('skips a line longer than it may keep, with a warning, and reads on', () => {
    const chunks = cut(`{"a":1}\n{"b":"${'y'.repeat(100)}"}\n{"c":3}\n{"d":"${'z'.repeat(60)}"}`, 16);
    const { lines, numbers, warnings } = split(chunks, new LineSplitter(64));
    expect(lines).toEqual(['{"a":1}', '{"c":3}']);
    expect(numbers).toEqual([1, 3]);
    expect(warnings).toEqual([
      { line: 2, message: 'line 2 is longer than 64 bytes, more than can be read as text; skipped' },
      { line: 4, message: 'line 4 is longer than 64 bytes, more than can be read as text; skipped' },
    ]);
  });
});
