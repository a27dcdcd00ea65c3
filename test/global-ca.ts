import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The local CA that proxy sessions and serve --tls make on first use lives in the user's
// configuration folder by default: the tests give every process they start one in a temporary
// folder instead, removed when they end.

let folder: string | undefined;

export function setup(): void {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-test-ca-'));
  process.env.PRINT_CONFORMANCE_CA_DIR = join(folder, 'ca');
}

export function teardown(): void {
  if (folder) rmSync(folder, { recursive: true, force: true });
}
