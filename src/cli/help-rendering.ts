import type { Argv } from 'yargs';

// yargs renders a command's whole help as it starts the command, and keeps it for a showHelp()
// called from inside the command. No command of this tool calls one (help is shown for --help,
// before any command starts), and the rendering, text measured for wrapping line by line, cost
// each run of validate, proxy or replay about 30 ms before its first line of work.

interface UsageInternals {
  cacheHelpMessage?: () => void;
}

/** Leaves the help of a starting command unrendered; a yargs without that step is left as it is. */
export function skipHelpRendering<T>(cli: Argv<T>): void {
  const internals = (
    cli as unknown as { getInternalMethods?: () => { getUsageInstance?: () => UsageInternals } }
  ).getInternalMethods?.();
  const usage = internals?.getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}
