import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', 'bin', 'print-conformance.js');

/**
 * Starts a CLI command that prints "listening on <url>" and returns the process and the URL.
 * `quiet`: what it logs (the proxy's findings) is dropped rather than shown. `bin`: another
 * checkout's CLI (an older build, to compare with).
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
