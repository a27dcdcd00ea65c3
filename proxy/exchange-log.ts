import { type RuleId, ruleById } from '../src/contract/rules.js';
import type { Violation } from '../src/validate/exchange.js';

// Counts violations by rule and side for the periodic and final summaries, and the exit code.

export interface RuleCount {
  severity: string;
  request: number;
  response: number;
}

export class ViolationTally {
  exchanges = 0;
  readonly byRule = new Map<RuleId, RuleCount>();

  add(violations: Violation[]): void {
    this.exchanges += 1;
    for (const v of violations) {
      const count = this.byRule.get(v.rule) ?? { severity: v.severity, request: 0, response: 0 };
      count[v.side] += 1;
      this.byRule.set(v.rule, count);
    }
  }

  /** 1 when a must rule was broken (with strict, a should rule too), else 0. */
  exitCode(strict: boolean): 0 | 1 {
    for (const rule of this.byRule.keys()) {
      const severity = ruleById(rule).severity;
      if (severity === 'must' || (strict && severity === 'should')) return 1;
    }
    return 0;
  }

  format(title: string): string {
    const lines = [`${title}: ${this.exchanges} exchanges`];
    if (this.byRule.size === 0) lines.push('  no violations');
    const width = Math.max(0, ...[...this.byRule.keys()].map((id) => id.length));
    for (const [rule, count] of [...this.byRule].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(
        `  ${rule.padEnd(width)}  ${count.severity.padEnd(7)}  client ${count.request}, service ${count.response}`,
      );
    }
    return lines.join('\n');
  }

  /** The summary as Markdown, for a pull-request comment (--summary-md). */
  markdown(target: string): string {
    const lines = [`### print-conformance proxy: ${this.exchanges} exchanges with ${target}`, ''];
    if (this.byRule.size === 0) return `${lines.join('\n')}No rule was broken.\n`;
    lines.push('| Rule | Severity | Client | Service |', '|---|---|---:|---:|');
    for (const [rule, count] of [...this.byRule].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`| \`${rule}\` | ${count.severity} | ${count.request} | ${count.response} |`);
    }
    return `${lines.join('\n')}\n`;
  }
}
