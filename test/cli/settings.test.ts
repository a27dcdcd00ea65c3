import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { serverErrorRecording } from '../helpers/server-error-recording.js';

// Option values from a config file found upward, from PRINT_CONFORMANCE_* variables and from the
// command line, in that order of rising precedence.

let folder: string;
let recording: string;
beforeAll(() => {
  ({ folder, recording } = serverErrorRecording('settings'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function project(config: object): { root: string; deep: string } {
  const root = mkdtempSync(join(folder, 'project-'));
  const deep = join(root, 'a', 'b');
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(root, 'print-conformance.config.json'), JSON.stringify(config));
  return { root, deep };
}

describe('settings', () => {
  it('finds the config file upward, applies its command section, and reads its paths from its folder', async () => {
    const { root, deep } = project({ reportDir: 'from-file', validate: { only: ['observe.'] } });
    const result = await runCli(['validate', recording], { cwd: deep });
    // http.no-server-error is not selected by the file's section: nothing fails (observe rules never do).
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/http\.no-server-error/);
    expect(result.stdout).toMatch(/\(\d+ rules not selected by --only\/--skip\)/);
    expect(existsSync(join(root, 'from-file', 'results.json'))).toBe(true);
  });

  it('lets report find and write where run and validate put the reports, by the same reportDir', async () => {
    const { root, deep } = project({ reportDir: 'from-file' });
    expect((await runCli(['validate', recording], { cwd: deep })).code).toBe(1);
    const report = await runCli(['report'], { cwd: deep, timeoutMs: 120_000 });
    expect(report.stderr).not.toMatch(/print-conformance:/);
    expect(report.stdout).toBe(`report written to ${join(root, 'from-file', 'allure-report', 'index.html')}\n`);
  });

  it('lets the environment win over the file, and the command line over both', async () => {
    const { root, deep } = project({ reportDir: 'from-file', only: ['observe.'] });
    const env = { PRINT_CONFORMANCE_REPORT_DIR: join(root, 'from-env'), PRINT_CONFORMANCE_VALIDATE_ONLY: 'http.' };
    const fromEnv = await runCli(['validate', recording], { cwd: deep, env });
    expect(fromEnv.code).toBe(1);
    expect(existsSync(join(root, 'from-env', 'results.json'))).toBe(true);
    expect(existsSync(join(root, 'from-file'))).toBe(false);
    const fromLine = await runCli(
      ['validate', recording, '--report-dir', join(root, 'from-line'), '--only', 'observe.'],
      {
        cwd: deep,
        env,
      },
    );
    expect(fromLine.code).toBe(0);
    expect(existsSync(join(root, 'from-line', 'results.json'))).toBe(true);
  });

  it('takes a variable set empty as not set, and refuses an empty report place given outright', async () => {
    const { root, deep } = project({ reportDir: 'from-file' });
    // PRINT_CONFORMANCE_REPORT_DIR= (a CI input left out) must not put the reports in the working folder.
    const unset = await runCli(['validate', recording], { cwd: deep, env: { PRINT_CONFORMANCE_REPORT_DIR: '' } });
    expect(unset.code).toBe(1);
    expect(existsSync(join(root, 'from-file', 'results.json'))).toBe(true);
    expect(existsSync(join(deep, 'results.json'))).toBe(false);
    for (const option of ['--report-dir', '--junit']) {
      const empty = await runCli(['validate', recording, option, ''], { cwd: deep });
      expect(empty.code, option).toBe(2);
      expect(empty.stderr).toBe(`print-conformance: ${option} is empty: give the place to write to\n`);
    }
    expect(existsSync(join(deep, 'results.json'))).toBe(false);
  });

  it('reads booleans and numbers from the environment, and refuses bad ones in one line', async () => {
    const json = await runCli(['rules'], { env: { PRINT_CONFORMANCE_RULES_JSON: 'true' } });
    expect(() => JSON.parse(json.stdout)).not.toThrow();
    const bad = await runCli(['proxy', '--target', 'http://127.0.0.1:9/'], {
      env: { PRINT_CONFORMANCE_PROXY_CLIENT_TIMEOUT: 'soon' },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('print-conformance: --client-timeout needs a number of at least 0\n');
  });

  it('reads a yes/no option from the environment as CI systems spell it, and refuses any other value', async () => {
    const isJson = async (value: string) => {
      const result = await runCli(['rules'], { env: { PRINT_CONFORMANCE_RULES_JSON: value } });
      return result.stdout.trimStart().startsWith('[') || result.stdout.trimStart().startsWith('{');
    };
    for (const value of ['1', 'yes', 'TRUE', 'on']) expect(await isJson(value), value).toBe(true);
    for (const value of ['0', 'no', 'false', 'off']) expect(await isJson(value), value).toBe(false);
    const bad = await runCli(['rules'], { env: { PRINT_CONFORMANCE_RULES_JSON: 'maybe' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'print-conformance: PRINT_CONFORMANCE_RULES_JSON=maybe is not a yes/no value; give true or false (also 1/0, yes/no, on/off)\n',
    );
  });

  it('keeps a client token out of serve: serve reads only PRINT_CONFORMANCE_SERVE_*', async () => {
    const open = await startListeningCli(['serve'], { env: { PRINT_CONFORMANCE_TOKEN: 'client-token' } });
    const guarded = await startListeningCli(['serve'], { env: { PRINT_CONFORMANCE_SERVE_TOKEN: 'service-token' } });
    try {
      const free = await request(`${open.url}orders`, { method: 'POST' });
      await free.body.dump();
      expect(free.statusCode).toBe(201);
      const refused = await request(`${guarded.url}orders`, { method: 'POST' });
      await refused.body.dump();
      expect(refused.statusCode).toBe(401);
    } finally {
      await open.stop();
      await guarded.stop();
    }
  });

  it('says in one line, exit 2, what is wrong with a config file', async () => {
    const cases: [string, RegExp][] = [
      ['{', /^print-conformance: config file \S+: .*JSON/],
      ['[1]', /must hold one JSON object\n$/],
      ['{"proxy": {"targett": "http://x/"}}', /: proxy has no option "targett"; did you mean "target"\?\n$/],
      ['{"validate": 5}', /"validate" must be an object of validate's options\n$/],
      // Top-level keys: known to some command, or refused, with the nearest name in the file's spelling.
      ['{"reportDri": "out"}', /: no option "reportDri"; did you mean "reportDir"\?\n$/],
      ['{"report-dri": "out"}', /: no option "report-dri"; did you mean "report-dir"\?\n$/],
      ['{"colour": true}', /: no option "colour"\n$/],
      ['{"valdate": {"only": ["x."]}}', /: no option "valdate"; did you mean "validate"\?\n$/],
      // Values of the wrong type are named, whichever command the file is read for.
      ['{"strict": "yes"}', /: "strict" must be true or false, not "yes"\n$/],
      ['{"timeout": "30"}', /: "timeout" must be a number, not "30"\n$/],
      ['{"format": "yaml"}', /: "format" must be one of "json", "xml", "both", not "yaml"\n$/],
      ['{"baseUrl": ["http://x/"]}', /: "baseUrl" must be one value, not a list\n$/],
      ['{"validate": {"only": [true]}}', /: "validate.only" must be a string or a list of strings, not true\n$/],
    ];
    for (const [text, message] of cases) {
      const file = join(folder, 'bad.json');
      writeFileSync(file, text);
      const result = await runCli(['proxy', '--config', file]);
      expect(result.code, text).toBe(2);
      expect(result.stderr, text).toMatch(message);
      expect(result.stderr.trim().split('\n'), text).toHaveLength(1);
    }
    const missing = await runCli(['rules', '--config', join(folder, 'none.json')]);
    expect(missing.stderr).toMatch(/^print-conformance: config file \S+none\.json: no such file\n$/);
  });

  it('takes a number for a text option and a single value for a list, as the command line would', async () => {
    const { deep } = project({ orderId: 12, only: 'observe.', serve: { port: 0 } });
    const result = await runCli(['validate', recording, '--report-dir', join(folder, 'lenient')], { cwd: deep });
    expect(result.stderr).not.toMatch(/config file/);
    expect(result.code).toBe(0);
  });

  it('refuses an unknown option on the command line with the one probably meant', async () => {
    const cases: [string[], string][] = [
      [['validate', recording, '--onyl', 'checkout.'], 'validate has no option --onyl (did you mean --only?)'],
      [['--repot-dir', 'x'], 'run has no option --repot-dir (did you mean --report-dir?)'],
      [['serve', '--prot', '0'], 'serve has no option --prot (did you mean --port?)'],
      [['valdate', recording], 'unknown command "valdate" (did you mean "validate"?)'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { env: { LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8' } });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(new RegExp(`^print-conformance: ${escapeRegExp(message)}`));
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
