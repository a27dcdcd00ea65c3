import { readFileSync } from 'node:fs';

/** Resident and peak resident memory of a process, in bytes, from /proc (Linux). */
export function processMemory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

export const MiB = 1024 * 1024;

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces), from the state on. */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in milliseconds, from /proc (Linux). */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * CPU time (user + system) of this process's children that have ended and been waited for, in
 * milliseconds (Linux): what a spawnSync'd command cost, all its threads and children included.
 */
export function endedChildrenCpuMs(): number {
  const fields = statFields('self');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}
