import { join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { TOOL_NAME, TOOL_VERSION } from '../contract/package-root.js';
import { RULES } from '../contract/rules.js';
import type { Finding } from '../probes/index.js';
import { readExchanges } from '../recording/read-exchanges.js';
import { writeAllureResults } from '../report/allure-report.js';
import { consoleSummary } from '../report/console-summary.js';
import { summariseExchange } from '../report/exchange-summary.js';
import { githubAnnotations } from '../report/github-annotations.js';
import { writeJsonReport } from '../report/json-report.js';
import { writeJunitReport } from '../report/junit-report.js';
import { exitCodeOf, type FormatVerdict, foldVerdicts, type RunResult } from '../report/run-result.js';
import { sniffFormat } from '../validate/document.js';
import { bodyText, type Exchange, endpointOf } from '../validate/exchange.js';
import { CheckoutState, validateExchange } from '../validate/index.js';
import { selectedRules } from './rule-selection.js';
import { UsageError } from './usage-error.js';

const KEPT_PER_RULE = 50;

/** The format an exchange was spoken in, for per-format verdicts: its answer's, else its request's. */
function formatOf(exchange: Exchange): 'json' | 'xml' | 'any' {
  const text = bodyText(exchange.response?.body) || bodyText(exchange.request.body) || '';
  return sniffFormat(text) ?? 'any';
}

export function validateCommand(yargs: Argv) {
  return yargs.command(
    'validate <files..>',
    'Validate recorded traffic offline: NDJSON recordings of the proxy and HAR 1.2 files',
    (y) =>
      y
        .positional('files', { type: 'string', array: true, describe: 'Recordings (.ndjson) or HAR files' })
        .option('only', { type: 'string', array: true, describe: 'Judge only these rule IDs or prefixes' })
        .option('skip', { type: 'string', array: true, describe: 'Skip these rule IDs or prefixes' })
        .option('strict', { type: 'boolean', default: false, describe: 'Fail on should rules too' })
        .option('report-dir', { type: 'string', default: 'reports', describe: 'Folder for results.json and junit.xml' })
        .option('json-report', { type: 'string', describe: 'Path of the JSON report' })
        .option('junit', { type: 'string', describe: 'Path of the JUnit report' })
        .option('reporter', {
          choices: ['console', 'github'] as const,
          default: 'console' as const,
          describe: 'github: also print GitHub Actions annotations for failed rules',
        })
        .option('allure-dir', {
          type: 'string',
          describe: 'Folder of Allure results (default <report-dir>/allure-results)',
        })
        .example('$0 validate traffic.ndjson', 'judge a proxy recording')
        .example('$0 validate session.har --only checkout.', 'judge the checkout exchanges of a browser HAR'),
    async (argv) => {
      const started = Date.now();
      const selected = selectedRules(argv.only, argv.skip);
      const files = (argv.files ?? []).map(String);
      const state = new CheckoutState();
      const findings: Finding[] = [];
      const counts = new Map<string, number>();
      const seen = { checkout: 0, upload: 0, any: 0 };
      let warnings = 0;
      for (const file of files) {
        for await (const exchange of readExchanges(file, (w) => {
          warnings += 1;
          process.stderr.write(`warning: ${w.file}: ${w.message}\n`);
        })) {
          seen.any += 1;
          const endpoint = endpointOf(exchange.request.url);
          if (endpoint.kind !== 'other') seen[endpoint.kind] += 1;
          const format = formatOf(exchange);
          // Traffic is judged on both sides: a client breaking a rule is as much a finding as a service.
          for (const violation of validateExchange(exchange, state)) {
            if (!selected.has(violation.rule)) continue;
            // A large recording can break one rule a million times: count them all, keep a few to show.
            const count = (counts.get(violation.rule) ?? 0) + 1;
            counts.set(violation.rule, count);
            if (count > KEPT_PER_RULE) continue;
            findings.push({
              rule: violation.rule,
              format,
              message: `${violation.side}: ${violation.message}`,
              exchange: summariseExchange(exchange),
            });
          }
        }
      }
      if (seen.any === 0) throw new UsageError(`no exchange found in ${files.join(', ')}`);

      const verdicts = new Map<string, FormatVerdict[]>();
      for (const rule of RULES) {
        const mine = findings.filter((f) => f.rule === rule.id);
        const more = (counts.get(rule.id) ?? 0) - mine.length;
        const last = mine.at(-1);
        if (more > 0 && last) mine.push({ ...last, message: `… and ${more} more exchanges like these` });
        const area = rule.id.startsWith('checkout.') ? 'checkout' : rule.id.startsWith('upload.') ? 'upload' : 'any';
        let skipReason: string | undefined;
        if (!selected.has(rule.id)) skipReason = 'not selected (--only/--skip)';
        else if (!rule.scope.includes('traffic')) skipReason = 'judged by the suite only';
        else if (seen[area] === 0) skipReason = `no ${area} exchange in the recording`;
        const failing = mine.length > 0 && (rule.severity === 'must' || (rule.severity === 'should' && argv.strict));
        const verdict: FormatVerdict = skipReason
          ? { format: 'any', state: 'skipped', failures: [], skipReason }
          : { format: 'any', state: failing ? 'failed' : 'passed', failures: mine };
        verdicts.set(rule.id, [verdict]);
      }
      const folded = foldVerdicts(verdicts, argv.strict);
      const result: RunResult = {
        tool: TOOL_NAME,
        version: TOOL_VERSION,
        target: files.join(', '),
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        ...folded,
      };
      const reportDir = resolve(argv['report-dir']);
      writeJsonReport(result, resolve(argv['json-report'] ?? join(reportDir, 'results.json')));
      writeJunitReport(result, resolve(argv.junit ?? join(reportDir, 'junit.xml')));
      writeAllureResults(result, resolve(argv['allure-dir'] ?? join(reportDir, 'allure-results')));
      process.stderr.write(`${seen.any} exchanges read${warnings ? `, ${warnings} lines skipped` : ''}\n`);
      process.stdout.write(consoleSummary(result));
      if (argv.reporter === 'github') process.stdout.write(githubAnnotations(result));
      process.exitCode = exitCodeOf(result, argv.strict);
    },
  );
}
