import { basename, delimiter, isAbsolute, join, relative } from 'node:path';
import { TOOL_VERSION } from '../contract/package-root.js';
import { inSingleExecutable } from '../output/single-executable.js';

// What the tool's hints tell a user to type: the way they started it. A user of the single
// executable has no npx, and one of the package no executable.

/** The command that starts this tool again: `npx print-conformance`, or the executable as found. */
export function commandName(): string {
  if (!inSingleExecutable) return 'npx print-conformance';
  const executable = process.execPath;
  const name = basename(executable);
  const onPath = (process.env.PATH ?? '').split(delimiter).some((dir) => dir && join(dir, name) === executable);
  if (onPath) return name;
  const here = relative(process.cwd(), executable);
  return here && !here.startsWith('..') && !isAbsolute(here) ? `./${here}` : executable;
}

/** `--version`: the tool's, and for the executable the Node.js it carries. */
export function versionText(): string {
  return inSingleExecutable ? `${TOOL_VERSION} (single executable, Node.js ${process.version})` : TOOL_VERSION;
}
