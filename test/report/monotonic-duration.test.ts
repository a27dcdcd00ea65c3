import { afterEach, describe, expect, it, vi } from 'vitest';
import { runResult } from '../../src/report/run-result.js';

// A run's duration is measured on a monotonic clock: a wall clock stepped back (NTP, a VM
// resumed) during a session must not make it negative or a day long.

afterEach(() => {
  vi.useRealTimers();
});

describe('a run result', () => {
  it('measures its duration on a monotonic clock, whatever the wall clock does meanwhile', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const started = Date.now();
    const startedMonotonic = performance.now();
    // The wall clock steps back a day while the session runs.
    vi.setSystemTime(started - 86_400_000);
    const result = runResult({
      target: 'http://127.0.0.1:1/v2/',
      started,
      startedMonotonic,
      context: { face: 'traffic', selected: new Set(), formats: ['json'], strict: false },
      rules: [],
      tally: { exchanges: 0, answers: {} },
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.durationMs).toBeLessThan(60_000);
    expect(result.startedAt).toBe(new Date(started).toISOString());
  });
});
