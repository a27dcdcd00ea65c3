import * as allure from 'allure-js-commons';
import { inject, test } from 'vitest';
import { RULES, type Rule } from '../src/contract/rules.js';
import type { Finding } from '../src/probes/index.js';
import { allureLabels } from '../src/report/allure-labels.js';
import './provided.js';

// Turns the probes' findings into one test per rule and format, named with the rule ID, so that
// JUnit, Allure and --only/--skip all speak in rule IDs.

/** JSON-only and XML-only rules say so in their IDs; the others hold in both formats. */
function formatsOf(rule: Rule, formats: string[]): string[] {
  if (rule.severity === 'observe') return ['any'];
  const only = /\.json\b|^format\.json$/.test(rule.id)
    ? 'json'
    : /\.xml\b|^format\.xml/.test(rule.id)
      ? 'xml'
      : undefined;
  return only ? formats.filter((f) => f === only) : formats;
}

const WRITING_RULES = new Set([
  'checkout.return-url.length',
  'checkout.status.open',
  'checkout.echo',
  'checkout.get.consistent',
  'format.xml-request',
]);

function skipReason(rule: Rule, config: ReturnType<typeof inject<'printConformanceConfig'>>): string | undefined {
  if (!config.selected.includes(rule.id)) return 'not selected (--only/--skip)';
  if (!rule.scope.includes('suite')) return 'judged in traffic only (proxy, validate)';
  if (config.readOnly && (WRITING_RULES.has(rule.id) || rule.area === 'upload')) return 'needs writes (--read-only)';
  if (rule.id === 'observe.large-upload' && !config.uploadSize) return 'needs --upload-size';
  return undefined;
}

const attachJson = (name: string, value: unknown) =>
  allure.attachment(name, JSON.stringify(value, null, 2), 'application/json');

function describeFailures(failures: Finding[]): string {
  return failures
    .slice(0, 5)
    .map((f) => `${f.message}\n    ${f.exchange.method} ${f.exchange.url} → ${f.exchange.status ?? f.exchange.error}`)
    .join('\n')
    .concat(failures.length > 5 ? `\n(and ${failures.length - 5} more)` : '');
}

export function defineRuleTests(area: Rule['area']): void {
  const config = inject('printConformanceConfig');
  const results = inject('printConformanceResults');
  const firstFormat = config.formats[0] ?? 'json';
  for (const rule of RULES.filter((r) => r.area === area)) {
    for (const format of formatsOf(rule, config.formats)) {
      const name = format === 'any' ? rule.id : `${rule.id} [${format}]`;
      test(name, async (context) => {
        const reason = skipReason(rule, config);
        if (reason) {
          context.skip(reason);
          return;
        }
        if (results.error) throw new Error(`the probes could not run: ${results.error}`);
        const failures = [
          ...config.preflight.map((p) => ({ ...p, format: 'any' as const })),
          ...results.findings,
        ].filter(
          (f) =>
            f.rule === rule.id &&
            (f.format === format || (f.format === 'any' && (format === firstFormat || format === 'any'))),
        );
        context.task.meta.verdict = {
          rule: rule.id,
          format,
          severity: rule.severity,
          failures,
          observation: results.observations[rule.id],
        };

        for (const { name, value } of allureLabels(rule)) await allure.label(name, value);
        await allure.parameter('format', format);
        await allure.description(rule.description);
        for (const [index, failure] of failures.slice(0, 3).entries()) {
          const { exchange } = failure;
          await attachJson(`request ${index + 1}`, {
            method: exchange.method,
            url: exchange.url,
            headers: exchange.requestHeaders,
            body: exchange.requestBody,
          });
          await attachJson(`response ${index + 1}`, {
            status: exchange.status,
            headers: exchange.responseHeaders,
            body: exchange.responseBody,
            error: exchange.error,
          });
        }
        if (results.observations[rule.id] !== undefined) {
          await attachJson('observed', results.observations[rule.id]);
        }

        if (failures.length === 0 || rule.severity === 'observe') return;
        if (rule.severity === 'must' || config.strict) throw new Error(describeFailures(failures));
        context.annotate(`warning: ${describeFailures(failures)}`, 'warning');
      });
    }
  }
}
