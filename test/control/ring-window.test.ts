import { describe, expect, it } from 'vitest';
import { RingWindow } from '../../src/control/ring-window.js';

describe('a ring window', () => {
  it('keeps the newest items oldest first, hands back the one it drops, and shifts from the oldest', () => {
    const ring = new RingWindow<number>(3);
    expect(ring.push(1)).toBeUndefined();
    expect(ring.push(2)).toBeUndefined();
    expect(ring.push(3)).toBeUndefined();
    expect(ring.push(4)).toBe(1);
    expect(ring.toArray()).toEqual([2, 3, 4]);
    expect(ring.at(0)).toBe(2);
    expect(ring.at(3)).toBeUndefined();
    expect(ring.at(-1)).toBeUndefined();
    expect(ring.shift()).toBe(2);
    expect(ring.length).toBe(2);
    expect(ring.push(5)).toBeUndefined();
    expect(ring.push(6)).toBe(3);
    expect(ring.toArray()).toEqual([4, 5, 6]);
    while (ring.length > 0) ring.shift();
    expect(ring.shift()).toBeUndefined();
    ring.push(7);
    expect(ring.toArray()).toEqual([7]);
  });
});
