import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, ftruncateSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileProblem } from '../findings/file-problem.js';
import { makeFolders } from './make-folders.js';

// Every file print-conformance writes: reports, summaries, recordings. Output folders are often
// shared (/tmp, a CI workspace): whoever can write one must not be able to make a run write where
// they choose. So a file written whole goes to a temporary file of a name nobody can guess, made
// new (never one that exists, nor a link planted there), then renamed over its place (a link in
// that place is replaced, not followed); a file written as it goes (a recording, a HAR file) is
// opened without following a link, and refused when it is a file with other names too (hard links).

/** O_NOFOLLOW where the system has it (not on Windows, where links are made by administrators). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** A name beside `file` that no one can guess ahead of time. */
function temporaryName(file: string): string {
  return join(dirname(file), `.${basename(file)}.${randomBytes(12).toString('hex')}.tmp`);
}

/**
 * Writes a file whole or not at all: into a new temporary file beside it, then renamed over it,
 * so an interrupted run never leaves half a file, nor the last run's posing as this one's.
 */
export function writeFileWhole(file: string, text: string | Uint8Array): void {
  makeFolders(dirname(file));
  const temporary = temporaryName(file);
  let fd: number | undefined;
  try {
    // "wx": made new, failing if anything (a link included) is there; never followed.
    fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o666);
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, file);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temporary, { force: true });
    // Named by the file asked for: the temporary name means nothing to whoever reads the error.
    const code = (error as NodeJS.ErrnoException).code;
    throw Object.assign(new Error(`cannot write ${file}: ${fileProblem(error)}`), { code, cause: error });
  }
}

/**
 * Makes `folder` if needed and proves it takes new files, by making one and removing it. Asking
 * the system whether it could (access) is not enough: /proc answers yes, then refuses every file.
 */
export function provenWritableFolder(folder: string): void {
  makeFolders(folder);
  const probe = temporaryName(join(folder, 'probe'));
  closeSync(openSync(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o666));
  rmSync(probe, { force: true });
}

/** Why an output file is refused: a link, or a file with other names. */
export class UnsafeOutputError extends Error {
  readonly code = 'EUNSAFE';
}

/**
 * Opens a file to write as it goes (appending, or from its start), never through a link: a link
 * where the file should be, or a file with other names (hard links), is refused. Returns the descriptor.
 */
export function openOutputFile(file: string, mode: 'append' | 'replace'): number {
  const flags = constants.O_WRONLY | constants.O_CREAT | NO_FOLLOW | (mode === 'append' ? constants.O_APPEND : 0);
  let fd: number;
  try {
    fd = openSync(file, flags, 0o666);
  } catch (error) {
    // ELOOP (Linux), EMLINK (FreeBSD), EFTYPE (macOS): the last part of the path is a link.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE')
      throw new UnsafeOutputError('a symbolic link: print-conformance writes no file through one');
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    // A device or a pipe given as it is (/dev/full, a FIFO a reader waits on) is written as asked.
    if (!stat.isFile()) return fd;
    if (stat.nlink > 1)
      throw new UnsafeOutputError('a file with other names (hard links): print-conformance writes none');
    // Emptied only once it is known to be the file it seems: opening with O_TRUNC would empty whatever it led to.
    if (mode === 'replace') ftruncateSync(fd, 0);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
