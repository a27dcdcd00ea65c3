import type { CoverageData, MemberCounts, OperationCoverage } from '../findings/types.js';

// Coverage in words and tables every writer shares: per operation, the formats and statuses its
// exchanges had, and how many documented members its requests and accepted answers showed.

const NAMES: Record<keyof CoverageData, string> = {
  'POST checkout': 'POST checkout/{code}',
  'GET checkout': 'GET checkout/{code}',
  'POST files': 'POST files/{code}',
};

const counted = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key, n]) => `${key} ×${n}`)
    .join(', ');

/** "json 8/8, xml 7/8 (never: /Tax)": members seen (present or nil) of those documented. */
function membersSeen(side: OperationCoverage['request']): string | undefined {
  const parts: string[] = [];
  for (const format of ['json', 'xml'] as const) {
    const members = side[format];
    if (!members) continue;
    const entries = Object.entries(members) as [string, MemberCounts][];
    const never = entries.filter(([, counts]) => counts.present + counts.nil === 0).map(([name]) => name);
    const seen = entries.length - never.length;
    const missing =
      never.length === 0 ? '' : ` (never: ${never.slice(0, 4).join(', ')}${never.length > 4 ? ', …' : ''})`;
    parts.push(`${format} ${seen}/${entries.length}${missing}`);
  }
  return parts.length > 0 ? parts.join(', ') : undefined;
}

export interface CoverageRow {
  operation: string;
  exchanges: string;
  statuses: string;
  contentTypes: string;
  request?: string;
  response?: string;
}

export function coverageRows(coverage: CoverageData | undefined): CoverageRow[] {
  const rows: CoverageRow[] = [];
  for (const [kind, name] of Object.entries(NAMES) as [keyof CoverageData, string][]) {
    const operation = coverage?.[kind];
    if (!operation) continue;
    const row: CoverageRow = {
      operation: name,
      exchanges: counted(operation.exchanges),
      statuses: counted(operation.statuses),
      contentTypes: `sent ${counted(operation.sent) || 'none'}; answered ${counted(operation.answered) || 'none'}`,
    };
    const request = membersSeen(operation.request);
    const response = membersSeen(operation.response);
    if (request) row.request = request;
    if (response) row.response = response;
    rows.push(row);
  }
  return rows;
}

/** The console's short table. */
export function coverageLines(coverage: CoverageData | undefined): string[] {
  const rows = coverageRows(coverage);
  if (rows.length === 0) return [];
  const lines = ['Coverage (documented members seen, of those described):'];
  for (const row of rows) {
    lines.push(`  ${row.operation}: ${row.exchanges}; answered ${row.statuses}`);
    if (row.request) lines.push(`    request members ${row.request}`);
    if (row.response) lines.push(`    answer members ${row.response}`);
  }
  return lines;
}
