import { lstatSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

// `mkdir -p` that always ends. Node's own (mkdirSync with `recursive`, sync or not) retries for
// ever where a folder exists but the system answers ENOENT for a child of it, as procfs does
// (--report-dir /proc/x): the command spun at full CPU and never returned. Here each missing
// folder is made once, from the first that exists downwards, and the first refusal is thrown.

/** Makes `folder` and any missing folders above it; throws the system's error where one cannot be made. */
export function makeFolders(folder: string): void {
  const missing: string[] = [];
  for (let at = resolve(folder); ; ) {
    try {
      if (statSync(at).isDirectory()) break;
      // A file where a folder should be, as mkdir -p refuses it.
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${at}'`), { code: 'ENOTDIR', path: at });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path);
    } catch (error) {
      // Made meanwhile by someone else: as good.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Makes `folder` a folder of its own: a symbolic link planted where it goes (in a shared /tmp or CI
 * workspace) is removed and a folder made in its place, so that nothing is written or cleared in
 * the folder it led to.
 */
export function ownFolder(folder: string): void {
  try {
    if (lstatSync(folder).isSymbolicLink()) unlinkSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  makeFolders(folder);
}
