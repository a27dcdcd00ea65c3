import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// The package's dependencies are what its commands load at run time, and nothing else: a user's
// install brings no test runner or build tool, and no command reaches for a package it lacks.

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sources(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The packages a file loads when it runs (type-only imports are gone once compiled). */
function loadedPackages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^import (?!type )[^;]*?from '([^.'][^']*)'/gms),
    ...text.matchAll(/^import '([^.'][^']*)'/gm),
    ...text.matchAll(/(?:import|require|requireHere)\('([^.'][^']*)'\)/g),
    ...text.matchAll(/createRequire\(import\.meta\.url\)\('([^.'][^']*)'\)/g),
  ].map(([, specifier]) => specifier as string);
  return specifiers
    .filter((name) => !name.startsWith('node:') && !builtinModules.includes(name))
    .map((name) => (name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : (name.split('/')[0] as string)));
}

describe("the package's dependencies", () => {
  it('hold every package the commands load, and no test runner', () => {
    const runtime = ['src', 'suites', 'proxy'].flatMap((folder) => sources(join(ROOT, folder)));
    const missing = runtime.flatMap((file) =>
      loadedPackages(file)
        .filter((name) => !(name in manifest.dependencies))
        .map((name) => `${file.slice(ROOT.length + 1)} loads ${name}`),
    );
    expect(missing).toEqual([]);
    expect(
      Object.keys(manifest.dependencies).filter((name) => /vitest|^vite$|jest|mocha|esbuild|typescript/.test(name)),
    ).toEqual([]);
  });

  it('load the report generator only in report', () => {
    const runtime = ['src', 'suites', 'proxy'].flatMap((folder) => sources(join(ROOT, folder)));
    const relative = (file: string) => file.slice(ROOT.length + 1);
    const generator = runtime.filter((file) => readFileSync(file, 'utf8').includes("'allure'"));
    expect(generator.map(relative)).toEqual(['src/report/html-report.ts']);
    const importers = runtime.filter((file) => readFileSync(file, 'utf8').includes('html-report.js'));
    expect(importers.map(relative)).toEqual(['src/cli/report-command.ts']);
    expect(readFileSync(join(ROOT, 'src/cli/report-command.ts'), 'utf8')).not.toMatch(/^import .*html-report\.js/m);
  });
});
