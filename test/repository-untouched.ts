import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

// No test writes outside a temporary folder: a command run without --report-dir in the checkout
// would clear the user's own reports/. What the checkout's top level and its reports/ hold is noted
// before each test file and compared after it; a difference fails that file, naming what changed.

const ROOT = join(import.meta.dirname, '..');
/** Written by the build and the tools around the tests, not by the tests. */
const NOT_WATCHED = new Set(['node_modules', 'dist', '.git', 'coverage']);

function snapshot(): Map<string, string> {
  const seen = new Map<string, string>();
  const note = (path: string, name: string) => {
    const stat = statSync(join(ROOT, path));
    seen.set(path, stat.isDirectory() ? 'folder' : `${stat.size} ${stat.mtimeMs}`);
    return name;
  };
  for (const name of readdirSync(ROOT)) if (!NOT_WATCHED.has(name)) note(name, name);
  const walk = (path: string) => {
    for (const entry of readdirSync(join(ROOT, path), { withFileTypes: true })) {
      note(join(path, entry.name), entry.name);
      if (entry.isDirectory()) walk(join(path, entry.name));
    }
  };
  walk('reports');
  // dist/ is left to the build, but a test that rebuilds it (a command that runs `prepare`, say)
  // rewrites modules under the other test files' CLIs as they load them: its entry point's time
  // tells.
  const entry = join(ROOT, 'dist', 'src', 'cli', 'main.js');
  if (existsSync(entry)) seen.set('dist/src/cli/main.js', String(statSync(entry).mtimeMs));
  return seen;
}

let before: Map<string, string>;

beforeAll(() => {
  before = snapshot();
});

afterAll(() => {
  const after = snapshot();
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
    (path) => before.get(path) !== after.get(path),
  );
  expect(changed.sort(), 'the tests changed the checkout outside a temporary folder').toEqual([]);
});
