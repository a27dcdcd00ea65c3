import { describe, expect, it } from 'vitest';
import { uploadProgress } from '../../src/probes/upload-progress.js';

// The line a person at a terminal sees every second of a large upload (--upload-size).

const MIB = 1024 * 1024;

describe('upload progress', () => {
  it('says how much of the upload is sent, of how much, and how fast', () => {
    const lines: string[] = [];
    let clock = 0;
    const meter = uploadProgress({ total: 200 * MIB, write: (l) => lines.push(l), enabled: false, now: () => clock });
    clock = 1000;
    meter.sent(40 * MIB);
    meter.tick();
    clock = 2000;
    meter.sent(60 * MIB);
    meter.tick();
    meter.stop();
    expect(lines).toEqual([
      '    upload: 40 MiB of 200 MiB sent (20%), 40 MiB/s',
      '    upload: 100 MiB of 200 MiB sent (50%), 50 MiB/s',
    ]);
  });

  it('keeps no timer when the lines would reach no one', () => {
    const lines: string[] = [];
    const meter = uploadProgress({ total: MIB, write: (l) => lines.push(l), enabled: false });
    meter.sent(MIB);
    meter.stop();
    expect(lines).toEqual([]);
  });
});
