import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** This checkout's CLI. */
export const BIN = join(import.meta.dirname, '..', 'bin', 'print-conformance.js');

/**
 * BENCH_BASE=/path/to/checkout: another build (a git worktree of an earlier commit, built with
 * `npm ci`) measured beside this one in the same run, its rounds taken in turn with this one's.
 */
export const BASE_CHECKOUT = process.env.BENCH_BASE ? resolve(process.env.BENCH_BASE) : undefined;
export const BASE_BIN = BASE_CHECKOUT ? join(BASE_CHECKOUT, 'bin', 'print-conformance.js') : undefined;
if (BASE_CHECKOUT && !existsSync(join(BASE_CHECKOUT, 'dist')))
  throw new Error(`BENCH_BASE=${BASE_CHECKOUT} has no dist/: run npm ci there first`);

/** The builds a comparison takes: this one, and the base one when BENCH_BASE names it. */
export function builds(): { build: 'this' | 'base'; bin: string }[] {
  return [{ build: 'this', bin: BIN }, ...(BASE_BIN ? [{ build: 'base' as const, bin: BASE_BIN }] : [])];
}

/**
 * BENCH_PIN=1 (Linux, taskset): the process measured runs alone on the last core, and this
 * process with everything it starts (the service, the load generator) on the others. On a machine
 * of two cores, a proxy that shares its core with the load is charged for being descheduled in
 * its system calls, and CPU per request swings by a tenth from one run to the next; pinned, by a
 * few hundredths.
 */
export const PINNED = process.env.BENCH_PIN === '1' && availableParallelism() > 1;
const LAST_CORE = availableParallelism() - 1;
if (PINNED) {
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', `0-${LAST_CORE - 1}`, String(process.pid)]);
  if (pinned.status !== 0) throw new Error(`BENCH_PIN=1 needs taskset: ${pinned.stderr?.toString().trim()}`);
}

/**
 * Starts a CLI command that prints "listening on <url>" and returns the process and the URL, and
 * what it printed up to that line (with --admin-port, the "admin on <url>" line before it).
 * `quiet`: what it logs (the proxy's findings) is dropped rather than shown. `bin`: another
 * build's CLI (see BASE_BIN). `measured`: the process whose cost is measured (see PINNED).
 */
export async function startListening(
  args: string[],
  quiet = false,
  bin = BIN,
  measured = false,
): Promise<{ child: ChildProcess; url: string; printed: string }> {
  const stdio: ('ignore' | 'pipe' | 'inherit')[] = ['ignore', 'pipe', quiet ? 'ignore' : 'inherit'];
  // A proxy writes its session's reports under ./reports when it stops: in a folder of its own,
  // removed once it has stopped, never over the reports of whoever runs the bench.
  const cwd = mkdtempSync(join(tmpdir(), 'print-conformance-bench-cli-'));
  // taskset runs the command in its own process (exec): the pid is the command's.
  const child =
    measured && PINNED
      ? spawn('taskset', ['-c', String(LAST_CORE), process.execPath, bin, ...args], { stdio, cwd })
      : spawn(process.execPath, [bin, ...args], { stdio, cwd });
  child.once('exit', () => rmSync(cwd, { recursive: true, force: true }));
  let out = '';
  child.stdout?.setEncoding('utf8');
  while (!/listening on \S+\n/.test(out)) {
    const [chunk] = await Promise.race([
      once(child.stdout!, 'data'),
      once(child, 'exit').then(() => {
        throw new Error(`${args[0]} exited before listening`);
      }),
    ]);
    out += chunk;
  }
  const url = /listening on (\S+)/.exec(out)?.[1];
  if (!url) throw new Error(`unexpected first line: ${out}`);
  return { child, url, printed: out };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}
