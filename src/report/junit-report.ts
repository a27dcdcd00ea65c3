import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { escapeXml } from '../contract/xml-writer.js';
import { failureDetail } from './failure-detail.js';
import type { RunResult } from './run-result.js';

/**
 * junit.xml for runs made outside vitest (validate): one test case per rule and format, named with
 * the rule ID, as the suite's vitest JUnit reporter names them.
 */
export function writeJunitReport(result: RunResult, file: string): void {
  const cases: string[] = [];
  let failures = 0;
  let skipped = 0;
  for (const rule of result.rules) {
    for (const verdict of rule.formats) {
      const name = verdict.format === 'any' ? rule.id : `${rule.id} [${verdict.format}]`;
      let inner = '';
      if (verdict.state === 'skipped') {
        skipped += 1;
        inner = `<skipped message="${escapeXml(verdict.skipReason ?? 'skipped')}"/>`;
      } else if (verdict.state === 'failed') {
        failures += 1;
        const text = verdict.failures
          .map(
            (f) =>
              `${f.message}\n  ${f.exchange.method} ${f.exchange.url} → ${f.exchange.status ?? f.exchange.error ?? ''}${failureDetail(f.exchange, '\n  ').join('')}`,
          )
          .join('\n');
        inner = `<failure message="${escapeXml(verdict.failures[0]?.message ?? 'failed')}" type="${rule.severity}">${escapeXml(text)}</failure>`;
      }
      cases.push(
        `    <testcase classname="${escapeXml(rule.id.split('.')[0] ?? '')}" name="${escapeXml(name)}" time="0">${inner}</testcase>`,
      );
    }
  }
  const seconds = (result.durationMs / 1000).toFixed(3);
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="print-conformance" tests="${cases.length}" failures="${failures}" errors="0" time="${seconds}">\n  <testsuite name="${escapeXml(result.target)}" timestamp="${result.startedAt}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds}">\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, xml);
}
