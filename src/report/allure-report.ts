import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Stage, Status } from 'allure-js-commons';
import { FileSystemWriter, ReporterRuntime } from 'allure-js-commons/sdk/reporter';
import { ruleById } from '../contract/rules.js';
import type { RuleResult, RunResult } from '../findings/types.js';
import { allureLabels } from './allure-labels.js';
import { clearAllureResults } from './clear-allure-results.js';
import { failureHeadline, failureText } from './failure-text.js';

// Allure results, the same for run and validate: one test per rule, labelled with its ID, severity
// and seed section, with the exchanges that broke it attached. A rule that fails the run is
// `failed` (never `broken`), an untested or skipped one `skipped` with the reason.

function statusOf(rule: RuleResult): Status {
  if (rule.failsRun) return Status.FAILED;
  if (rule.status === 'untested' || rule.status === 'skipped') return Status.SKIPPED;
  return Status.PASSED;
}

function messageOf(rule: RuleResult): string | undefined {
  if (rule.failsRun) return failureText(rule, 3);
  if (rule.status === 'untested' || rule.status === 'skipped') return `${rule.status}: ${rule.reason ?? ''}`;
  if (rule.status === 'failed') return `warning: ${failureHeadline(rule)}`;
  return undefined;
}

function writeInto(result: RunResult, folder: string): void {
  const runtime = new ReporterRuntime({ writer: new FileSystemWriter({ resultsDir: folder }) });
  const start = Date.parse(result.startedAt) || Date.now();
  for (const ruleResult of result.rules) {
    const rule = ruleById(ruleResult.id);
    const message = messageOf(ruleResult);
    const uuid = runtime.startTest({
      name: rule.id,
      fullName: `print-conformance: ${rule.id}`,
      description: rule.description,
      labels: allureLabels(rule),
      parameters: ruleResult.formats.map((f) => ({ name: f.format, value: `${f.status} (${f.evidence} exchanges)` })),
      status: statusOf(ruleResult),
      stage: Stage.FINISHED,
      statusDetails: message === undefined ? {} : { message },
      start,
    });
    for (const [index, failure] of ruleResult.failures.slice(0, 3).entries()) {
      runtime.writeAttachment(uuid, null, `exchange ${index + 1}`, Buffer.from(JSON.stringify(failure, null, 2)), {
        contentType: 'application/json',
      });
    }
    runtime.stopTest(uuid, { stop: start + result.durationMs });
    runtime.writeTest(uuid);
  }
}

/**
 * Writes the results into a fresh folder beside the target first, then replaces the target's
 * Allure files with them: an interrupted run leaves the folder as it was.
 */
export function writeAllureResults(result: RunResult, resultsDir: string): void {
  mkdirSync(resultsDir, { recursive: true });
  const staging = mkdtempSync(join(resultsDir, '.writing-'));
  try {
    writeInto(result, staging);
    clearAllureResults(resultsDir);
    for (const name of readdirSync(staging)) renameSync(join(staging, name), join(resultsDir, name));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
