import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ownFolder } from '../output/make-folders.js';
import { writeFileWhole } from '../output/output-file.js';
import { inSingleExecutable, unpackedAsset } from '../output/single-executable.js';

// Turns Allure results (written by `run` and `validate`) into one self-contained HTML page with
// the Allure 3 report generator, so the report opens from disk, offline, in any browser.

export interface HtmlReportOptions {
  resultsDir: string;
  outputDir: string;
  name: string;
}

/**
 * The generator's own CLI: the `allure` package exports no API of its own beyond it. The single
 * executable carries the package and what it needs as an archive, unpacked on first use.
 */
function allureCli(): string {
  if (inSingleExecutable) return join(unpackedAsset('allure'), 'node_modules', 'allure', 'cli.js');
  const entry = createRequire(import.meta.url).resolve('allure');
  return join(dirname(dirname(entry)), 'cli.js');
}

/**
 * Runs the generator's CLI on a thread of this process, not in a Node.js of its own: the single
 * executable has no Node.js to start it with. It ends by setting its exit code, as a process would.
 */
async function runAllure(args: string[]): Promise<void> {
  const worker = new Worker(allureCli(), {
    argv: args,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdout: true,
    stderr: true,
  });
  let said = '';
  const keep = (chunk: Buffer) => {
    // Its last words are what a failure is told by; a chatty run must not fill the memory.
    said = `${said}${chunk.toString('utf8')}`.slice(-16 * 1024);
  };
  worker.stdout.on('data', keep);
  worker.stderr.on('data', keep);
  const failed = once(worker, 'error').then(([error]) => error as Error);
  const [code] = (await Promise.race([once(worker, 'exit'), failed.then((error) => Promise.reject(error))])) as [
    number,
  ];
  if (code !== 0) throw new Error(said.trim().split('\n').filter(Boolean).at(-1) ?? `exit code ${code}`);
}

/**
 * The generator adds a Google Analytics tag to every page, unconditionally. A conformance report
 * is often read inside a company's network and must not call out when opened: the tag is removed.
 */
export function withoutAnalytics(html: string): string {
  return html.replace(
    /\s*<script async src="https:\/\/www\.googletagmanager\.com\/gtag\/js[^"]*"><\/script>\s*<script>[\s\S]*?gtag\('config'[\s\S]*?<\/script>/,
    '',
  );
}

export function hasAllureResults(folder: string): boolean {
  try {
    return readdirSync(folder).some((name) => name.endsWith('-result.json'));
  } catch {
    return false;
  }
}

/**
 * The Allure result files in `folder` that cannot be read (cut off, changed): the generator leaves
 * them out without a word, so a failed rule would go missing from the page and it would be green.
 */
export function unreadableAllureResults(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('-result.json'))
    .filter((name) => {
      try {
        const result = JSON.parse(readFileSync(join(folder, name), 'utf8')) as { status?: unknown; name?: unknown };
        return typeof result?.status !== 'string' || typeof result.name !== 'string';
      } catch {
        return true;
      }
    });
}

/**
 * Copies the generated files into the output folder as every report is written: each file whole,
 * a link in its place (or in a folder's place) replaced, never followed.
 */
function copyReplacingLinks(from: string, to: string): void {
  ownFolder(to);
  // Folders first, the outer before the inner: no file is written through a folder not yet made its own.
  const entries = readdirSync(from, { recursive: true, withFileTypes: true }).sort(
    (a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.parentPath.length - b.parentPath.length,
  );
  for (const entry of entries) {
    const source = join(entry.parentPath, entry.name);
    const place = join(to, relative(from, source));
    if (entry.isDirectory()) ownFolder(place);
    else if (entry.isFile()) {
      const bytes = readFileSync(source);
      writeFileWhole(place, entry.name === 'index.html' ? withoutAnalytics(bytes.toString('utf8')) : bytes);
    }
  }
}

/** Writes `<outputDir>/index.html`; rejects with the generator's last words if it fails. */
export async function writeHtmlReport(options: HtmlReportOptions): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'print-conformance-report-'));
  try {
    const config = join(work, 'allurerc.json');
    // The generator writes into a folder of this run's own, never into the output folder, where a
    // link planted in a shared place would lead its files elsewhere.
    const generated = join(work, 'generated');
    writeFileSync(
      config,
      JSON.stringify({
        name: options.name,
        plugins: {
          awesome: {
            // Rules grouped by area (checkout, upload, format, observe); a group with a failure opens.
            options: { singleFile: true, reportName: options.name, reportLanguage: 'en', groupBy: ['feature'] },
          },
        },
      }),
    );
    try {
      await runAllure(['generate', options.resultsDir, '--output', generated, '--config', config]);
    } catch (error) {
      throw new Error(`the Allure report generator failed: ${(error as Error).message}`);
    }
    copyReplacingLinks(generated, options.outputDir);
    return join(options.outputDir, 'index.html');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
