import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { type Rule, ruleById } from '../contract/rules.js';
import type { Finding, FormatKey, RuleResult, RunResult } from '../findings/types.js';
import { exitCodeOf } from '../validate/verdicts.js';
import { exchangeLine } from './failure-text.js';
import { writeFileWhole } from './write-file.js';

// SARIF 2.1.0, the form GitHub code scanning and GitLab read: one result per rule and format that
// failed, each pointing at the exchange that showed it (the recording's line when it came from a
// file, else the operation it called), the rule's catalog text as its help. Code scanning refuses a
// whole upload when a location's URI has a scheme other than file, so every URI is a relative
// reference with none: the recording's path, or "operations/POST-checkout" for live traffic, whose
// full URL goes in the message. A must rule that could not be
// tested is no finding about the service: it is a notification of the invocation, whose exit code
// tells the same story as every other report.

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

type Level = 'error' | 'warning' | 'note';

const DEFAULT_LEVEL: Record<Rule['severity'], Level> = { must: 'error', should: 'warning', observe: 'note' };

export interface SarifOptions {
  /** The recordings `validate` read, in order: a finding's `at.file` indexes this list. */
  recordings?: readonly string[];
  /** Paths of recordings are written relative to this folder (the repository's root in CI). */
  cwd?: string;
}

function ruleDescriptor(rule: Rule) {
  return {
    id: rule.id,
    shortDescription: { text: rule.title },
    fullDescription: { text: rule.description },
    help: {
      text: `${rule.description} (seed ${rule.seed})`,
      markdown: `**${rule.id}** (${rule.severity}, seed ${rule.seed})\n\n${rule.description}`,
    },
    defaultConfiguration: { level: DEFAULT_LEVEL[rule.severity] },
    properties: { tags: [rule.area, rule.severity], seed: rule.seed },
  };
}

/**
 * A message text as plain text: a viewer reads "[text](target)" as an embedded link and "{0}" as a
 * placeholder (SARIF 2.1.0 §3.11.5, §3.11.6), so brackets from traffic are escaped with a
 * backslash and braces doubled.
 */
function plainMessage(text: string): { text: string } {
  return { text: text.replace(/[\\[\]]/g, (char) => `\\${char}`).replace(/[{}]/g, (brace) => brace + brace) };
}

/** A path as a relative URI reference: each segment percent-encoded, so no colon reads as a scheme. */
function relativeUri(segments: readonly string[]): string {
  return segments.map((segment) => encodeURIComponent(segment)).join('/');
}

function fileUri(file: string, cwd: string): string {
  const path = relative(cwd, resolve(cwd, file));
  // On another drive (Windows) no relative path exists: the file's name still says which it was.
  if (isAbsolute(path)) return relativeUri([basename(path)]);
  return relativeUri(path.split(sep));
}

const OPERATION_PATH = /\/(checkout|files)\/[^/]+\/?$/;

/**
 * Live traffic lives at no line of a file: its location names the operation it called, the same for
 * every run against any host, so that an alert stays one alert ("operations/POST-checkout").
 */
export function operationUri(method: string, url: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // A URL a client sent malformed is named by what it holds.
  }
  const verb = method.toUpperCase().replace(/[^A-Z]/g, '') || 'REQUEST';
  const name = OPERATION_PATH.exec(path)?.[1] ?? (path.split('/').filter(Boolean).at(-1) || 'root');
  return relativeUri(['operations', `${verb}-${name.replace(/[^A-Za-z0-9._-]/g, '_')}`]);
}

function locationOf(finding: Finding, options: SarifOptions) {
  const recording = finding.at ? options.recordings?.[finding.at.file] : undefined;
  if (recording && finding.at)
    return {
      physicalLocation: {
        artifactLocation: { uri: fileUri(recording, options.cwd ?? process.cwd()) },
        region: { startLine: Math.max(1, finding.at.line) },
      },
      message: plainMessage(exchangeLine(finding)),
    };
  return {
    physicalLocation: { artifactLocation: { uri: operationUri(finding.exchange.method, finding.exchange.url) } },
    message: plainMessage(exchangeLine(finding)),
  };
}

function resultsOf(rule: RuleResult, ruleIndex: number, options: SarifOptions) {
  return rule.formats
    .filter((f) => f.status === 'failed')
    .map((formatResult) => {
      const format: FormatKey = formatResult.format;
      const findings = rule.failures.filter((f) => f.format === format);
      const first = findings[0] ?? rule.failures[0];
      const inFormat = format === 'any' ? '' : ` [${format}]`;
      const what = first ? `${first.side}: ${first.message}` : 'failed';
      const count = Math.max(formatResult.broken, findings.length);
      return {
        ruleId: rule.id,
        ruleIndex,
        kind: 'fail',
        level: rule.failsRun ? 'error' : 'warning',
        // The exchange's full URL is said here: the location names only the operation or the file.
        message: plainMessage(
          `${rule.id}${inFormat}: ${what}${count > 1 ? ` (${count} exchanges broke it)` : ''}${first ? `\n${exchangeLine(first)}` : ''}`,
        ),
        locations: first ? [locationOf(first, options)] : [],
        // The alert of a rule and format stays one alert from run to run, whatever exchange showed it.
        partialFingerprints: { 'ruleFormat/v1': `${rule.id}/${format}` },
        properties: { format, severity: rule.severity, exchanges: count, evidence: formatResult.evidence },
      };
    });
}

export function sarifReport(result: RunResult, options: SarifOptions = {}): string {
  const failed = result.rules.filter((rule) => rule.status === 'failed' && rule.severity !== 'observe');
  const rules = failed.map((rule) => ruleById(rule.id));
  const untested = result.rules.filter((rule) => rule.status === 'untested' && rule.failsRun);
  const exitCode = result.exitCode ?? exitCodeOf(result.rules);
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: result.tool,
            version: result.version,
            semanticVersion: result.version,
            rules: rules.map(ruleDescriptor),
          },
        },
        invocations: [
          {
            executionSuccessful: exitCode !== 2,
            exitCode,
            startTimeUtc: result.startedAt,
            endTimeUtc: new Date(Date.parse(result.startedAt) + result.durationMs).toISOString(),
            toolExecutionNotifications: untested.map((rule) => ({
              level: 'error',
              message: plainMessage(`${rule.id} untested: ${rule.reason ?? 'no exchange could test it'}`),
              descriptor: { id: rule.id },
            })),
          },
        ],
        properties: {
          target: result.target,
          summary: result.summary,
          // A generated run is repeated request for request from its seed.
          ...(result.generated
            ? { generated: { seed: result.generated.seed, ran: result.generated.ran, asked: result.generated.asked } }
            : {}),
        },
        results: failed.flatMap((rule, index) => resultsOf(rule, index, options)),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

export function writeSarifReport(result: RunResult, file: string, options: SarifOptions = {}): void {
  writeFileWhole(file, sarifReport(result, options));
}
