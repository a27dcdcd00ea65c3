import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The same modules run from src/ (tests) and from dist/src/ (the installed CLI), so the package's
// own folder is found by walking up to its package.json rather than by a fixed relative path.
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'print-conformance') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('print-conformance: cannot find the package folder');
    dir = parent;
  }
}

export const PACKAGE_ROOT = findPackageRoot();

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};
export const TOOL_NAME = pkg.name;
export const TOOL_VERSION = pkg.version;
