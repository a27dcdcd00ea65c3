import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
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
 * Starts a CLI command that prints "listening on <url>" and returns the process and the URL.
 * `quiet`: what it logs (the proxy's findings) is dropped rather than shown. `bin`: another
 * build's CLI (see BASE_BIN).
 */
export async function startListening(
  args: string[],
  quiet = false,
  bin = BIN,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', quiet ? 'ignore' : 'inherit'] });
  let out = '';
  child.stdout?.setEncoding('utf8');
  while (!out.includes('\n')) {
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
  return { child, url };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}
