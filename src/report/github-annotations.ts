import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Finding, RunResult } from '../findings/types.js';
import { exchangeLine, failureHeadline } from './failure-text.js';
import { terminalText } from './terminal-text.js';

// GitHub Actions workflow commands: one annotation per rule that fails the run (error) or warns
// (warning), so they show on the run's summary page. Values are escaped as the runner expects
// (%, CR, LF; also : and , in properties).

const escapeData = (text: string) =>
  terminalText(text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
const escapeProperty = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

export interface AnnotationOptions {
  /** The recordings judged, in order: a finding's `at.file` indexes this list. */
  recordings?: readonly string[];
  /** Paths are written relative to this folder (the workspace, where GitHub looks for files). */
  cwd?: string;
}

/** file= and line= when the exchange came from a recording in the workspace: GitHub shows it there. */
function fileProperties(finding: Finding | undefined, options: AnnotationOptions): string {
  const recording = finding?.at ? options.recordings?.[finding.at.file] : undefined;
  if (!recording || !finding?.at) return '';
  const cwd = options.cwd ?? process.cwd();
  const path = relative(cwd, resolve(cwd, recording));
  if (isAbsolute(path) || path.startsWith('..')) return '';
  return `file=${escapeProperty(path.split(sep).join('/'))},line=${Math.max(1, finding.at.line)},`;
}

export function githubAnnotations(result: RunResult, options: AnnotationOptions = {}): string {
  const lines: string[] = [];
  for (const rule of result.rules) {
    const warns = rule.status === 'failed' && !rule.failsRun;
    if (!rule.failsRun && !warns) continue;
    const first = rule.failures[0];
    const where = first ? `\n${exchangeLine(first)}` : '';
    const more = rule.failures.length + rule.moreFailures - 1;
    const tail = more > 0 ? `\n(${more} more)` : '';
    lines.push(
      `::${rule.failsRun ? 'error' : 'warning'} ${fileProperties(first, options)}title=${escapeProperty(`print-conformance ${rule.id}`)}::${escapeData(`${failureHeadline(rule)}${where}${tail}`)}`,
    );
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
