import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// npm runs a dependency's install script only when the project's allowScripts names it, and warns
// at every `npm ci` about one it does not: each is decided here, once, so that a first install is quiet.

interface LockedPackage {
  hasInstallScript?: boolean;
}

describe('install scripts', () => {
  it('every locked package with an install script is named in allowScripts', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockedPackage>;
    };
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    const decided = Object.keys(manifest.allowScripts ?? {}).map((key) => key.replace(/(?<=.)@.*$/, ''));
    expect(withScripts.filter((name) => !decided.includes(name))).toEqual([]);
  });
});
