// Why a file could not be read or written, in words: "ENOENT" is Node's name for it, not the user's.

const WORDS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'a folder, not a file',
  ENOTDIR: 'a part of its path is not a folder',
  EROFS: 'on a read-only file system',
  ENOSPC: 'no space left on the device',
  EMFILE: 'too many open files',
  Z_DATA_ERROR: 'not valid gzip data',
  Z_BUF_ERROR: 'gzip data cut off',
};

export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code && WORDS[code]) return WORDS[code];
  // A file refused as unsafe to write (src/output/output-file.ts) says why in its message.
  if (code === 'EUNSAFE') return (error as Error).message;
  if (code) return code;
  return error instanceof Error ? error.message : String(error);
}
