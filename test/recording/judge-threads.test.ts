import { describe, expect, it } from 'vitest';
import { startJudgeThread } from '../../src/recording/judge-threads.js';

describe('judging threads', () => {
  it('start with the young generation of Node.js 20 on every Node.js line', async () => {
    const worker = startJudgeThread();
    // Only the limits asked for matter here, not the thread's start (the built code may be absent).
    worker.on('error', () => {});
    try {
      expect(worker.resourceLimits?.maxYoungGenerationSizeMb).toBe(48);
    } finally {
      await worker.terminate();
    }
  });
});
