import { describe, expect, it } from 'vitest';
import { partsJudgedHere } from '../../src/recording/worker-judges.js';

// The reading thread judges a share of the checkouts beside the workers: smaller than a worker's,
// since reading costs it too, and never below nothing however many workers there are.

describe('the share of checkouts the reading thread judges', () => {
  it('is a little under half beside one worker, and less beside more', () => {
    const one = partsJudgedHere(1);
    const three = partsJudgedHere(3);
    expect(one).toBeGreaterThan(350);
    expect(one).toBeLessThan(500);
    expect(three).toBeGreaterThan(0);
    expect(three).toBeLessThan((1000 - three) / 3);
  });

  it('is nothing beside so many workers that reading alone keeps the thread busy', () => {
    expect(partsJudgedHere(7)).toBe(0);
    expect(partsJudgedHere(64)).toBe(0);
  });
});
