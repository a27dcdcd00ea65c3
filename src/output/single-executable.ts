import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { TOOL_VERSION } from '../contract/package-root.js';
import { makeFolders } from './make-folders.js';

// The tool also runs as one executable (Node.js's single executable applications, built by
// `npm run build:exe`). Its code is one bundle; what must be files on disk (the HTML report's
// generator and its assets) travels inside it as an archive and is unpacked on first use into the
// user's cache, never beside the binary, which may sit in a folder no one may write to.

interface Sea {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

/** node:sea where this Node.js has it (20.12 and later; the package asks for 20.19). */
function seaModule(): Sea | undefined {
  try {
    return process.getBuiltinModule?.('node:sea') as Sea | undefined;
  } catch {
    return undefined;
  }
}

const sea = seaModule();

/** Whether this process is the single executable rather than Node.js running the package. */
export const inSingleExecutable = sea?.isSea() === true;

/** `$XDG_CACHE_HOME/print-conformance/<version>/` (default ~/.cache): where unpacked files go. */
export function cacheFolder(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
  return join(base, 'print-conformance', TOOL_VERSION);
}

/**
 * Where unpacked files go when the cache cannot be written (a container's user whose home is not
 * theirs, a read-only home): a folder of this user's own under the temporary folder, made private.
 * One another user made first, or that others may write to, is refused: its code would be run.
 */
export function temporaryCacheFolder(): string {
  const uid = process.getuid?.() ?? 0;
  const root = join(tmpdir(), `print-conformance-${uid}`);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const stat = lstatSync(root);
  if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o022) !== 0)
    throw new Error(`${root} is not a private folder of this user`);
  return join(root, TOOL_VERSION);
}

/** A cache that cannot be written to, as opposed to an archive that cannot be unpacked. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOENT', 'EEXIST']);

/** The archive format the build writes (scripts/build-exe.mjs): gzip of a JSON index's length, the index, the files. */
function unpack(archive: Buffer, into: string): void {
  const bytes = gunzipSync(archive);
  const indexLength = bytes.readUInt32BE(0);
  const index = JSON.parse(bytes.subarray(4, 4 + indexLength).toString('utf8')) as { path: string; size: number }[];
  let at = 4 + indexLength;
  for (const file of index) {
    // The build names the files; a path out of the folder would be a damaged archive.
    if (isAbsolute(file.path) || file.path.split('/').includes('..'))
      throw new Error(`bad path ${file.path} in archive`);
    const place = join(into, file.path);
    makeFolders(dirname(place));
    writeFileSync(place, bytes.subarray(at, at + file.size));
    at += file.size;
  }
}

/**
 * The folder holding the executable's asset `name` unpacked, made on first use. A folder of the
 * same version from another build is told apart by the archive's digest in its name.
 */
export function unpackedAsset(name: string): string {
  if (!sea || !inSingleExecutable) throw new Error(`${name} is carried by the single executable only`);
  const archive = Buffer.from(sea.getAsset(name));
  const digest = createHash('sha256').update(archive).digest('hex').slice(0, 16);
  try {
    return unpackInto(join(cacheFolder(), `${name}-${digest}`), name, archive, digest);
  } catch (error) {
    const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    if (!code || !UNWRITABLE.has(code)) throw error;
    return unpackInto(join(temporaryCacheFolder(), `${name}-${digest}`), name, archive, digest);
  }
}

function unpackInto(folder: string, name: string, archive: Buffer, digest: string): string {
  if (existsSync(join(folder, '.complete'))) return folder;
  // Unpacked aside and moved into place whole: a process that stops half-way leaves no half folder
  // posing as complete, and two processes unpacking at once both end with a whole one.
  const aside = `${folder}.${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(aside, { recursive: true });
    unpack(archive, aside);
    writeFileSync(join(aside, '.complete'), `${digest}\n`);
    rmSync(folder, { recursive: true, force: true });
    try {
      renameSync(aside, folder);
    } catch (error) {
      if (!existsSync(join(folder, '.complete'))) throw error;
    }
  } catch (error) {
    throw new Error(`cannot unpack ${name} into ${dirname(folder)}: ${(error as Error).message}`, { cause: error });
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
  return folder;
}

/** The executable's asset read whole (a bundled worker's code, say). */
export function assetText(name: string): string {
  if (!sea || !inSingleExecutable) throw new Error(`${name} is carried by the single executable only`);
  return Buffer.from(sea.getAsset(name)).toString('utf8');
}
