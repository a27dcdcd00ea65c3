import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh temporary folder holding a recording of one exchange that breaks http.no-server-error (a
 * must rule) and nothing of checkout's: the smallest traffic with a verdict, for CLI tests.
 */
export function serverErrorRecording(prefix: string): { folder: string; recording: string } {
  const folder = mkdtempSync(join(tmpdir(), `print-conformance-${prefix}-`));
  const recording = join(folder, 'one.ndjson');
  writeFileSync(
    recording,
    `${JSON.stringify({
      request: { method: 'GET', url: 'http://s.test/v2/checkout/c', headers: { accept: 'application/json' } },
      response: { status: 500, headers: { 'content-type': 'application/json' }, body: { text: '{}', size: 2 } },
    })}\n`,
  );
  return { folder, recording };
}
