import { closeSync, constants, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { UsageError } from '../findings/usage-error.js';

// Two sessions appending to one recording would interleave their lines (a line of one cut by a
// line of the other). A session takes FILE.lock, made new (O_EXCL), holding its process id and
// host; a lock left by a session that no longer runs (kill -9, a crash) on this host is taken over.

const HOST = hostname();

function holder(lock: string): { pid: number; host: string } | undefined {
  try {
    const [pid, host] = readFileSync(lock, 'utf8').trim().split(' ');
    const number = Number(pid);
    return Number.isInteger(number) && number > 0 ? { pid: number, host: host ?? '' } : undefined;
  } catch {
    return undefined;
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryTake(lock: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // The lock is made beside the recording: its folder missing is what to say, not the lock's name.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw Object.assign(new Error(`its folder ${dirname(lock)} does not exist`), { code: 'ENOENT' });
    throw error;
  }
  try {
    writeSync(fd, `${process.pid} ${HOST}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

export interface RecordingLock {
  release(): void;
}

/** Takes FILE.lock for this process, or refuses (a usage error) while another session holds it. */
export function lockRecording(file: string, option = '--record'): RecordingLock {
  const lock = `${file}.lock`;
  for (let tries = 0; !tryTake(lock); tries += 1) {
    const owner = holder(lock);
    const alive = owner === undefined ? tries === 0 : owner.host !== HOST || running(owner.pid);
    if (alive || tries > 1)
      throw new UsageError(
        `${option} ${file}: another session records to it${owner ? ` (process ${owner.pid}${owner.host !== HOST ? ` on ${owner.host}` : ''})` : ''}; give each session its own file (or remove ${lock} if no session runs)`,
      );
    // Left by a session that ended without letting go (kill -9): taken over.
    rmSync(lock, { force: true });
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    const owner = holder(lock);
    if (owner?.pid === process.pid && owner.host === HOST) rmSync(lock, { force: true });
  };
  process.on('exit', release);
  return { release };
}
