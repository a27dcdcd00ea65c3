import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stage, Status } from 'allure-js-commons';
import { ReporterRuntime } from 'allure-js-commons/sdk/reporter';
import { ruleById } from '../contract/rules.js';
import type { FormatResult, RuleResult, RunResult } from '../findings/types.js';
import { ownFolder } from '../output/make-folders.js';
import { allureEnvironment, allureExecutor } from './allure-environment.js';
import { allureLabels } from './allure-labels.js';
import { StagingWriter } from './allure-staging-writer.js';
import { clearAllureResults } from './clear-allure-results.js';
import { failureHeadline, failureText, OBSERVED, sameFindings } from './failure-text.js';

// Allure results, the same for run and validate: one test per rule, labelled with its ID, severity
// and seed section, with the exchanges that broke it attached. A rule that fails the run is
// `failed` (never `broken`), an untested or skipped one `skipped` with the reason, an observed one
// `unknown`.
// Allure keys History, trends, "new failed" and flaky marks on historyId, which it would otherwise
// hash from the parameters: a rule's identity is therefore its ID alone, and its verdict per format
// is a step, never a parameter, so that a rule keeps one history whatever its verdicts.

/** The same for a rule in every run of every face: md5, as Allure's own ids are. */
export function allureIdOf(ruleId: string): string {
  return createHash('md5').update(`print-conformance:${ruleId}`).digest('hex');
}

/** Allure's status of a result that is neither a verdict nor "not run"; its JavaScript model names only the four others. */
const UNKNOWN = 'unknown' as Status;

function formatStatus(format: FormatResult, rule: RuleResult): Status {
  if (format.status === 'failed') return rule.failsRun ? Status.FAILED : Status.PASSED;
  if (format.status === 'untested' || format.status === 'skipped') return Status.SKIPPED;
  if (format.status === 'observed') return UNKNOWN;
  return Status.PASSED;
}

/**
 * An observe rule records and never judges: `unknown`, Allure's one status that is neither a
 * verdict nor "not run", so that the page counts as many passed as the console and results.json.
 */
function statusOf(rule: RuleResult): Status {
  if (rule.failsRun) return Status.FAILED;
  if (rule.status === 'untested' || rule.status === 'skipped') return Status.SKIPPED;
  if (rule.status === 'observed') return UNKNOWN;
  return Status.PASSED;
}

/** The width a result's message is folded to: the card Allure shows it in. */
const CARD_WIDTH = 100;

function messageOf(rule: RuleResult): string | undefined {
  if (rule.failsRun) return failureText(rule, { shown: 3, width: CARD_WIDTH });
  if (rule.status === 'untested' || rule.status === 'skipped') return `${rule.status}: ${rule.reason ?? ''}`;
  if (rule.status === 'observed') return `observed: ${OBSERVED}`;
  if (rule.status === 'failed') return `warning: ${failureHeadline(rule)}`;
  return undefined;
}

function writeInto(result: RunResult, folder: string): void {
  const runtime = new ReporterRuntime({
    writer: new StagingWriter(folder),
    environmentInfo: allureEnvironment(result),
  });
  const start = Date.parse(result.startedAt) || Date.now();
  // A rule's verdict is given when the run ends, so each test spans the run: the page's header
  // then says how long the run took, as results.json does (it spans its tests' earliest start to
  // latest stop). How long the rule's own exchanges took is its steps' time.
  const end = start + result.durationMs;
  for (const ruleResult of result.rules) {
    const rule = ruleById(ruleResult.id);
    const message = messageOf(ruleResult);
    const id = allureIdOf(rule.id);
    const stop = start + (ruleResult.durationMs ?? 0);
    const uuid = runtime.startTest({
      name: rule.id,
      fullName: `print-conformance: ${rule.id}`,
      testCaseId: id,
      historyId: id,
      description: rule.description,
      labels: allureLabels(rule),
      status: statusOf(ruleResult),
      stage: Stage.FINISHED,
      statusDetails: message === undefined ? {} : { message },
      start,
    });
    // One exchange per distinct finding: the same finding of ten exchanges is one attachment, not ten.
    for (const [index, { first, count }] of sameFindings(ruleResult.failures).slice(0, 3).entries()) {
      const name = `finding ${index + 1}${count > 1 ? ` (${count} exchanges, the first)` : ''}`;
      runtime.writeAttachment(uuid, null, name, Buffer.from(JSON.stringify(first, null, 2)), {
        contentType: 'application/json',
      });
    }
    for (const format of ruleResult.formats) {
      const step = runtime.startStep(uuid, undefined, {
        name: `${format.format}: ${format.status} (${format.evidence} exchanges${format.broken ? `, ${format.broken} broke it` : ''})`,
        start,
      });
      if (step)
        runtime.updateStep(step, (s) => {
          s.status = formatStatus(format, ruleResult);
          s.stage = Stage.FINISHED;
          if (format.reason) s.statusDetails = { message: format.reason };
        });
      if (step) runtime.stopStep(step, { stop });
    }
    runtime.stopTest(uuid, { stop: end });
    runtime.writeTest(uuid);
  }
  // A case per client test and per client team: each passed, failed or (nothing of the interface sent) skipped.
  const verdictCase = (
    kind: { id: string; suite: string; name: string; fullName: string },
    verdict: {
      passed: boolean;
      judged: number;
      exchanges: number;
      failed: readonly { rule: string; messages: readonly string[] }[];
    },
  ) => {
    const failures = verdict.failed.map((f) => `${f.rule}: ${f.messages.join('; ')}`).join('\n');
    const uuid = runtime.startTest({
      name: kind.name,
      fullName: kind.fullName,
      testCaseId: kind.id,
      historyId: kind.id,
      labels: [
        { name: 'suite', value: kind.suite },
        { name: 'feature', value: kind.suite },
      ],
      // One that sent nothing of the interface showed nothing: skipped, never passed.
      status: !verdict.passed ? Status.FAILED : verdict.judged === 0 ? Status.SKIPPED : Status.PASSED,
      stage: Stage.FINISHED,
      statusDetails: !verdict.passed
        ? { message: `broke ${verdict.failed.map((f) => f.rule).join(', ')}`, trace: failures }
        : verdict.judged === 0
          ? { message: `no exchange of the interface (${verdict.exchanges} exchanges)` }
          : {},
      start,
    });
    runtime.stopTest(uuid, { stop: start });
    runtime.writeTest(uuid);
  };
  for (const test of result.clientTests ?? [])
    verdictCase(
      { id: `client-test:${test.name}`, suite: 'client tests', name: test.name, fullName: `client test: ${test.name}` },
      test,
    );
  for (const client of result.clients?.clients ?? [])
    verdictCase(
      {
        id: `client:${client.client}`,
        suite: 'clients',
        name: `client ${client.client}`,
        fullName: `client: ${client.client}`,
      },
      client,
    );
  runtime.writeEnvironmentInfo();
  writeFileSync(join(folder, 'executor.json'), `${JSON.stringify(allureExecutor(result), null, 2)}\n`);
}

/**
 * Writes the results into a fresh folder beside the target first, then replaces the target's
 * Allure files with them: an interrupted run leaves the folder as it was.
 */
export function writeAllureResults(result: RunResult, resultsDir: string): void {
  // A link where the folder goes is replaced, not followed: the folder it led to keeps its files.
  ownFolder(resultsDir);
  const staging = mkdtempSync(join(resultsDir, '.writing-'));
  try {
    writeInto(result, staging);
    clearAllureResults(resultsDir);
    for (const name of readdirSync(staging)) renameSync(join(staging, name), join(resultsDir, name));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
