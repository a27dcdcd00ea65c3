import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'print-conformance.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let scratch: string | undefined;

/**
 * Where a command runs unless a test says otherwise: a temporary folder, never the checkout, whose
 * reports/ a command left without --report-dir would clear. Made once per test file's process.
 */
function scratchFolder(): string {
  scratch ??= mkdtempSync(join(tmpdir(), 'print-conformance-cwd-'));
  return scratch;
}

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** Starts the built CLI as a user would, collecting what it prints. */
function spawnCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? scratchFolder(),
    // Colour only when a test asks for it: the summary is matched as plain text. A CI job's own
    // summary file is no place for the tests' runs.
    env: {
      ...process.env,
      FORCE_COLOR: undefined,
      NO_COLOR: undefined,
      GITHUB_STEP_SUMMARY: undefined,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const printed = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => {
    printed.stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    printed.stderr += chunk;
  });
  return { child, printed };
}

/** Runs the built CLI to its end and returns what it printed. */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const { child, printed } = spawnCli(args, options);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ...printed });
    });
  });
}

/**
 * Starts a CLI command that serves (serve, proxy) and waits for its "listening on <url>" line.
 * The service under test may live in this test's own process, so nothing here blocks it.
 */
export async function startListeningCli(args: string[], options: { env?: NodeJS.ProcessEnv } = {}) {
  const { child, printed } = spawnCli(args, options);
  while (!printed.stdout.includes('\n')) {
    if (child.exitCode !== null) throw new Error(`${args[0]} exited: ${printed.stderr}`);
    await Promise.race([once(child.stdout, 'data'), once(child, 'exit')]);
  }
  const url = /^listening on (https?:\/\/\S+\/)\n/.exec(printed.stdout)?.[1];
  if (!url) throw new Error(`unexpected first line: ${printed.stdout}`);
  return {
    child,
    url,
    output: () => ({ ...printed }),
    /** Signals the process and waits for its exit code. */
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill(signal);
        await exited;
      }
      return { code: child.exitCode, signal: child.signalCode, ...printed };
    },
  };
}
