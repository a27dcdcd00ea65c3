import { gzipSync } from 'node:zlib';

// What GitHub code scanning refuses in an uploaded SARIF file beyond the schema ("SARIF support
// for code scanning", "SARIF results exceed limit"): a location whose URI has a scheme other than
// file refuses the whole upload, as do more than 20 runs, 25 000 results or rules per run, 1 000
// locations per result, 20 tags per rule, 100 tool extensions per run, or 10 MB gzipped.

interface SarifLocation {
  physicalLocation?: { artifactLocation?: { uri?: string } };
}
interface SarifLog {
  runs: {
    tool: { driver: { rules?: { properties?: { tags?: string[] } }[] }; extensions?: unknown[] };
    results?: { locations?: SarifLocation[]; relatedLocations?: SarifLocation[] }[];
    artifacts?: { location?: { uri?: string } }[];
  }[];
}

/** A URI reference that names a scheme: letters, digits, + . - before the first colon. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export function githubSarifProblems(text: string): string[] {
  const log = JSON.parse(text) as SarifLog;
  const problems: string[] = [];
  if (gzipSync(text).length > 10 * 1024 * 1024) problems.push('over 10 MB gzipped');
  if (log.runs.length > 20) problems.push(`${log.runs.length} runs`);
  for (const run of log.runs) {
    const rules = run.tool.driver.rules ?? [];
    if (rules.length > 25_000) problems.push(`${rules.length} rules`);
    if ((run.tool.extensions?.length ?? 0) > 100) problems.push('over 100 extensions');
    for (const rule of rules) if ((rule.properties?.tags?.length ?? 0) > 20) problems.push('over 20 tags');
    const results = run.results ?? [];
    if (results.length > 25_000) problems.push(`${results.length} results`);
    const uris = [
      ...(run.artifacts ?? []).map((a) => a.location?.uri),
      ...results
        .flatMap((r) => [...(r.locations ?? []), ...(r.relatedLocations ?? [])])
        .map((l) => l.physicalLocation?.artifactLocation?.uri),
    ];
    for (const result of results)
      if ((result.locations?.length ?? 0) > 1000) problems.push(`${result.locations?.length} locations`);
    for (const uri of uris) {
      if (uri === undefined) continue;
      if (SCHEME.test(uri) && !uri.startsWith('file:')) problems.push(`URI with a scheme: ${uri}`);
      // Relative, so it reads the same on every runner: no scheme and no leading slash.
      if (SCHEME.test(uri) || uri.startsWith('/')) problems.push(`URI not relative: ${uri}`);
    }
  }
  return problems;
}
