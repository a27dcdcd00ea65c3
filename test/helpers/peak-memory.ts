import { existsSync, readFileSync } from 'node:fs';
import { startListeningCli } from './cli.js';

// The proxy as its own process, so that what an attack makes it hold shows in its peak resident
// memory (VmHWM, Linux), not mixed with the test's own clients and targets.

/** Whether peak memory can be read here (Linux /proc). */
export const peakMemoryReadable = existsSync('/proc/self/status');

function statusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : Number.NaN;
}

/** `print-conformance proxy` in a child process, in front of `target`, with its peak memory. */
export async function proxyProcess(target: string, args: string[] = []) {
  const proxy = await startListeningCli(['proxy', '--target', target, '--summary-interval', '0', ...args]);
  const pid = proxy.child.pid as number;
  const startPeak = statusKiB(pid, 'VmHWM');
  return {
    ...proxy,
    /** How far the peak resident memory rose since the proxy started listening, in MiB. */
    peakGrowthMiB: () => (statusKiB(pid, 'VmHWM') - startPeak) / 1024,
  };
}
