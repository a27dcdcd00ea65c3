import type { Argv } from 'yargs';

// The report options every command that gives verdicts takes (run, validate, merge, replay): where each
// report goes, and the extra console forms. Declared once, so they read the same in every --help.

export function withReportOptions<T>(y: Argv<T>) {
  return y
    .option('report-dir', {
      type: 'string',
      default: 'reports',
      describe: 'Folder for results.json, junit.xml and allure-results/',
    })
    .option('json-report', {
      type: 'string',
      describe: 'Path of the JSON report (default <report-dir>/results.json)',
    })
    .option('junit', { type: 'string', describe: 'Path of the JUnit report (default <report-dir>/junit.xml)' })
    .option('allure-dir', {
      type: 'string',
      describe: 'Folder of Allure results (default <report-dir>/allure-results)',
    })
    .option('sarif', {
      type: 'string',
      describe: 'Also write SARIF 2.1.0 here (GitHub code scanning, GitLab): one result per failed rule and format',
    })
    .option('summary-md', {
      type: 'string',
      describe: 'Write the summary as Markdown here (also appended to $GITHUB_STEP_SUMMARY when set)',
    })
    .option('reporter', {
      choices: ['console', 'github'] as const,
      default: 'console' as const,
      describe: 'github: also print GitHub Actions annotations for failed rules',
    });
}
