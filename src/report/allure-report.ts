import { mkdirSync } from 'node:fs';
import { Stage, Status } from 'allure-js-commons';
import { FileSystemWriter, ReporterRuntime } from 'allure-js-commons/sdk/reporter';
import { ruleById } from '../contract/rules.js';
import { allureLabels } from './allure-labels.js';
import type { RunResult } from './run-result.js';

const STATUS = { passed: Status.PASSED, failed: Status.FAILED, skipped: Status.SKIPPED } as const;

/**
 * Allure results for runs made outside vitest (validate): one test per rule and format, labelled
 * as the suite labels them, with the exchanges that showed a failure attached.
 */
export function writeAllureResults(result: RunResult, resultsDir: string): void {
  mkdirSync(resultsDir, { recursive: true });
  const runtime = new ReporterRuntime({ writer: new FileSystemWriter({ resultsDir }) });
  const start = Date.parse(result.startedAt) || Date.now();
  for (const ruleResult of result.rules) {
    const rule = ruleById(ruleResult.id);
    for (const verdict of ruleResult.formats) {
      const name = verdict.format === 'any' ? rule.id : `${rule.id} [${verdict.format}]`;
      const uuid = runtime.startTest({
        name,
        fullName: `print-conformance validate: ${name}`,
        description: rule.description,
        labels: allureLabels(rule),
        parameters: [{ name: 'format', value: verdict.format }],
        status: STATUS[verdict.state],
        stage: Stage.FINISHED,
        statusDetails: verdict.skipReason
          ? { message: verdict.skipReason }
          : verdict.failures[0]
            ? { message: verdict.failures[0].message }
            : {},
        start,
      });
      for (const [index, failure] of verdict.failures.slice(0, 3).entries()) {
        runtime.writeAttachment(
          uuid,
          null,
          `exchange ${index + 1}`,
          Buffer.from(JSON.stringify(failure.exchange, null, 2)),
          { contentType: 'application/json' },
        );
      }
      runtime.stopTest(uuid, { stop: start + result.durationMs });
      runtime.writeTest(uuid);
    }
  }
}
