import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// Imports run one way: catalog, shared types, file output → core → redaction → HTTP plumbing →
// sources (suite, proxy, recordings, reference service) → report writers → CLI. A module may import
// from its own folder and from layers below it; sources do not import each other (the suite wraps
// the probes). Redaction is reached through its one entry, src/redaction/index.ts.

const LAYERS: Record<string, number> = {
  'src/contract': 0,
  'src/findings': 1,
  // File output words its errors as the findings do (file-problem.ts).
  'src/output': 1.5,
  'src/validate': 2,
  'src/redaction': 2.5,
  'src/http': 3,
  // The local CA and TLS trust: plumbing the proxy, the reference service and the CLI share.
  'src/tls': 3,
  // The control API and live page: read by the proxy and the reference service alike.
  'src/control': 3.5,
  // Running for days (admin port, metrics, logs, signals, the console going away, the recording's
  // file, rotation): the proxy and the reference service both use it, and the CLI.
  'src/operations': 3.7,
  'src/probes': 4,
  'src/recording': 4,
  'src/replay': 4,
  'src/reference': 4,
  // Matchers for a JavaScript test's own exchanges: a source, as the proxy is.
  'src/matchers': 4,
  proxy: 4,
  suites: 4,
  'src/report': 5,
  'src/cli': 6,
  'src/index.ts': 7,
};
// A replay reads recordings and judges what it sends again as a recording is judged.
const ALLOWED_SIDEWAYS = new Set(['suites -> src/probes', 'src/replay -> src/recording']);

function folderOf(file: string): string {
  const path = relative(ROOT, file);
  return Object.keys(LAYERS).find((folder) => path === folder || path.startsWith(`${folder}/`)) ?? path;
}

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the direction of imports', () => {
  it('never runs against the flow', () => {
    const wrong: string[] = [];
    for (const file of ['src', 'proxy', 'suites'].flatMap((folder) => sources(join(ROOT, folder)))) {
      const from = folderOf(file);
      for (const [, target] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?'(\.{1,2}\/[^']+)'/g)) {
        const to = folderOf(resolve(dirname(file), target as string));
        if (to === from || ALLOWED_SIDEWAYS.has(`${from} -> ${to}`)) continue;
        const [a, b] = [LAYERS[from], LAYERS[to]];
        if (a === undefined || b === undefined || b >= a) wrong.push(`${relative(ROOT, file)} imports ${to}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reaches redaction through its one entry from outside it', () => {
    const inner: string[] = [];
    for (const file of ['src', 'proxy', 'suites'].flatMap((folder) => sources(join(ROOT, folder)))) {
      if (folderOf(file) === 'src/redaction') continue;
      for (const [, target] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?'(\.{1,2}\/[^']+)'/g)) {
        const to = relative(ROOT, resolve(dirname(file), target as string));
        if (to.startsWith('src/redaction/') && to !== 'src/redaction/index.js')
          inner.push(`${relative(ROOT, file)} imports ${to}`);
      }
    }
    expect(inner).toEqual([]);
  });
});
