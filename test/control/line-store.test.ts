import { describe, expect, it } from 'vitest';
import { LineStore } from '../../src/control/line-store.js';

describe('the line store', () => {
  it('gives back every line as it was put, across chunks, long lines and reused chunks', () => {
    const store = new LineStore();
    const lines = Array.from({ length: 2000 }, (_, index) => `{"n":${index},"t":"${'é€😀'.repeat(index % 50)}"}`);
    lines.push('x'.repeat(300 * 1024));
    const kept = lines.map((line) => store.put(line));
    expect(kept.map((stored) => store.get(stored))).toEqual(lines);
    // Released oldest first, as the window drops them; the chunks they emptied are written again.
    for (const stored of kept.slice(0, 1500)) store.release(stored);
    const again = Array.from({ length: 3000 }, (_, index) => `again ${index} ${'ü'.repeat(index % 300)}`);
    const keptAgain = again.map((line) => store.put(line));
    expect(keptAgain.map((stored) => store.get(stored))).toEqual(again);
    expect(kept.slice(1500).map((stored) => store.get(stored))).toEqual(lines.slice(1500));
  });
});
