import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileProblem } from '../findings/file-problem.js';
import type { RunResult } from '../findings/types.js';
import { markdownSummary } from '../report/markdown-summary.js';
import { writeFileWhole } from '../report/write-file.js';

/**
 * The Markdown summary of run or validate: to --summary-md (whole, replacing the last run's) and,
 * inside a GitHub Actions job, appended to $GITHUB_STEP_SUMMARY, which shows it on the run's page.
 */
export function writeMarkdownOutputs(result: RunResult, summaryMd: string | undefined, env = process.env): void {
  const markdown = markdownSummary(result);
  if (summaryMd) writeFileWhole(resolve(summaryMd), markdown);
  appendJobSummary(markdown, env);
}

/** Inside a GitHub Actions job, the Markdown summary appended to $GITHUB_STEP_SUMMARY (every face). */
export function appendJobSummary(markdown: string, env = process.env): void {
  const jobSummary = env.GITHUB_STEP_SUMMARY;
  if (!jobSummary) return;
  try {
    appendFileSync(jobSummary, `${markdown}\n`);
  } catch (error) {
    // The job summary is GitHub's page, not a report asked for: the verdict stands without it.
    process.stderr.write(
      `print-conformance: cannot append to $GITHUB_STEP_SUMMARY ${jobSummary}: ${fileProblem(error)}\n`,
    );
  }
}
