import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutAnalytics } from '../../src/report/html-report.js';
import { CHROMIUM, chromiumEnvironment, HEADLESS_FLAGS } from '../helpers/chromium-page.js';
import { runCli } from '../helpers/cli.js';
import { checkoutGet, checkoutPost } from '../helpers/exchanges.js';

// `report` turns Allure results into one HTML page that opens from disk with no network, and
// that a browser renders into the list of rules with their verdicts.

// CI installs Debian's chromium; elsewhere the browser checks run when it is there.
const browserTest = CHROMIUM || process.env.CI ? it : it.skip;

let folder: string;
let index: string;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-html-'));
  const broken = checkoutGet('json', '{}', 500);
  writeFileSync(
    join(folder, 'traffic.ndjson'),
    [checkoutPost('json'), checkoutGet('json'), broken].map((e) => JSON.stringify(e)).join('\n'),
  );
  // Both formats asked for: the XML rules go untested, so the format group holds a failure too.
  const validated = await runCli([
    'validate',
    join(folder, 'traffic.ndjson'),
    '--format',
    'both',
    '--report-dir',
    join(folder, 'r'),
  ]);
  expect(validated.code).toBe(1);
  const report = await runCli(['report', join(folder, 'r', 'allure-results'), '--output', join(folder, 'html')]);
  expect(report.stderr).not.toMatch(/print-conformance:/);
  expect(report.code).toBe(0);
  index = join(folder, 'html', 'index.html');
  expect(report.stdout).toBe(`report written to ${index}\n`);
}, 120_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs headless Chromium as this machine allows it: no sandbox as root, no background network. */
async function chromium(args: string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'print-conformance-chromium-'));
  try {
    const { stdout } = await promisify(execFile)(
      CHROMIUM ?? 'chromium',
      [...HEADLESS_FLAGS, `--user-data-dir=${profile}`, '--virtual-time-budget=10000', ...args],
      { maxBuffer: 64 * 1024 * 1024, timeout: 60_000, env: chromiumEnvironment(profile) },
    );
    return stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

describe('print-conformance report', () => {
  it("counts the page's verdicts as results.json does, and spans the run's duration", () => {
    const html = readFileSync(index, 'utf8');
    const encoded = /statistic\.json","([A-Za-z0-9+/=]+)"/.exec(html)?.[1];
    const statistic = JSON.parse(Buffer.from(encoded ?? '', 'base64').toString('utf8'));
    const results = JSON.parse(readFileSync(join(folder, 'r', 'results.json'), 'utf8'));
    const { passed, warnings, failed, untested, skipped, observed } = results.summary;
    // A warning passes, an untested rule is skipped (or failed when it fails the run).
    expect(statistic.passed ?? 0).toBe(passed + warnings);
    expect(statistic.unknown ?? 0).toBe(observed);
    expect(statistic.total).toBe(passed + warnings + failed + untested + skipped + observed);
    const span = /"runSummary":\{"start":\d+,"stop":\d+,"duration":(\d+)\}/.exec(html)?.[1];
    expect(Number(span)).toBe(results.durationMs);
  });

  it('writes one self-contained page that calls nothing outside when opened', () => {
    const html = readFileSync(index, 'utf8');
    expect(html).not.toContain('googletagmanager');
    const external = [...html.matchAll(/(?:src|href)="(https?:[^"]+)"/g)].map((m) => m[1]);
    expect(external).toEqual([]);
  });

  it('removes exactly the analytics tag the generator adds', () => {
    const page = `<body>\n<div id="app"></div>\n    <script async src="https://www.googletagmanager.com/gtag/js?id=G-X"></script>\n    <script>\n        window.dataLayer = window.dataLayer || [];\n        gtag('config', 'G-X', {});\n    </script>\n    <script>window.data = 1;</script>\n</body>`;
    expect(withoutAnalytics(page)).toBe('<body>\n<div id="app"></div>\n    <script>window.data = 1;</script>\n</body>');
  });

  browserTest('renders in headless Chromium into the rules by area, the broken one failed and in view', async () => {
    const dom = await chromium(['--dump-dom', `file://${index}`]);
    // Rules are grouped by area; the group holding the failed rule is open, its rules listed.
    for (const text of ['checkout', 'upload', 'format', 'http.no-server-error', 'format.well-formed', 'Failed'])
      expect(dom).toContain(text);
    const screenshot = join(folder, 'report.png');
    await chromium(['--window-size=1280,1400', `--screenshot=${screenshot}`, `file://${index}`]);
    const png = readFileSync(screenshot);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // IHDR: the page was drawn at the window's size, not left blank.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 1400]);
    expect(png.length).toBeGreaterThan(20_000);
  });

  it('refuses results it cannot read, rather than write a page without their rules', async () => {
    const cut = join(folder, 'cut');
    mkdirSync(cut);
    writeFileSync(join(cut, '1-result.json'), '{"name":"checkout.echo","status":"failed"}');
    writeFileSync(join(cut, '2-result.json'), '{"name":"checkout.status.open","sta');
    const result = await runCli(['report', cut]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^print-conformance: 1 Allure result file in \S+cut cannot be read \(2-result\.json\): cut off or changed, their rules would be missing from the report; run the suite or validate again\n$/,
    );
  });

  it('says in one line, exit 2, when there are no results', async () => {
    const none = await runCli(['report', join(folder, 'nothing')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /^print-conformance: no Allure results in \S+nothing; run the suite or validate first\n$/,
    );
  });
});
