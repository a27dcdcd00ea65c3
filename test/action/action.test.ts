import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/cli.js';

// action.yml's steps run as a GitHub runner runs a composite action, without GitHub: each step's
// env: with its ${{ }} expressions replaced, its run: given to bash, $GITHUB_OUTPUT,
// $GITHUB_STEP_SUMMARY and $GITHUB_ENV temporary files, the steps stopping at the first that fails.

interface Step {
  id: string;
  shell: string;
  env: Record<string, string>;
  run: string;
}
interface Action {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

/** What $GITHUB_OUTPUT holds, as the runner reads it: name=value lines and name<<DELIMITER blocks. */
function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const block = /^([\w-]+)<<(.+)$/.exec(line);
    if (block) {
      const [, name = '', delimiter = ''] = block;
      const end = lines.indexOf(delimiter, i + 1);
      outputs[name] = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    const pair = /^([\w-]+)=(.*)$/.exec(line);
    if (pair) outputs[pair[1] ?? ''] = pair[2] ?? '';
  }
  return outputs;
}

interface StepRun {
  id: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

let folder: string;
let count = 0;

function runAction(inputs: Record<string, string>, options: { path?: string } = {}) {
  const job = join(folder, `job-${++count}`);
  const workspace = join(job, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const summary = join(job, 'summary.md');
  const stepOutputs: Record<string, Record<string, string>> = {};
  const expression = (text: string) =>
    text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, name: string) => {
      const [scope, first = '', , last = ''] = name.split('.');
      if (scope === 'inputs') return inputs[first] ?? action.inputs[first]?.default ?? '';
      if (name === 'github.action_path') return ROOT;
      if (scope === 'steps') return stepOutputs[first]?.[last] ?? '';
      throw new Error(`no value for ${name}`);
    });
  const steps: StepRun[] = [];
  for (const step of action.runs.steps) {
    const output = join(job, `${step.id}.output`);
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expression(String(v))]));
    const ran = spawnSync('bash', ['-e', '-c', step.run], {
      cwd: workspace,
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        PATH: options.path ?? process.env.PATH,
        HOME: join(job, 'home'),
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_ENV: join(job, 'env'),
        RUNNER_TEMP: job,
        ...env,
      },
    });
    stepOutputs[step.id] = readOutputs(output);
    steps.push({ id: step.id, code: ran.status, stdout: ran.stdout, stderr: ran.stderr });
    if (ran.status !== 0) break;
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, o]) => [k, expression(o.value)]));
  return { steps, outputs, workspace, summary: existsSync(summary) ? readFileSync(summary, 'utf8') : '' };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-action-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('action.yml', () => {
  it('is a composite action whose run: scripts hold no expression (inputs come through env:)', () => {
    expect(action.runs.using).toBe('composite');
    for (const step of action.runs.steps) expect(step.run, step.id).not.toContain('${{');
    expect(action.runs.steps.at(-1)?.id).toBe('verdict');
  });

  it('passes: the embedded run, its counts and report folder as outputs, the job summary written', () => {
    const { steps, outputs, workspace, summary } = runAction({ args: '--quiet' });
    expect(
      steps.map((s) => [s.id, s.code]),
      steps.map((s) => s.stderr).join('\n'),
    ).toEqual([
      ['install', 0],
      ['judge', 0],
      ['verdict', 0],
    ]);
    expect(outputs['exit-code']).toBe('0');
    expect(Number(outputs.passed)).toBeGreaterThan(0);
    expect([outputs.failed, outputs.warnings, outputs.untested]).toEqual(['0', '0', '0']);
    expect(outputs['report-dir']).toBe('print-conformance-reports');
    expect(existsSync(join(workspace, outputs.sarif ?? 'none'))).toBe(true);
    expect(summary).toContain('passed');
  }, 120_000);

  it('fails last: the outputs written, the annotations printed, the step exiting 1', () => {
    const good =
      '{"amount": 1.0, "status": "Open", "paymentUrl": "https://p.test/x", "returnUrl": "https://r.test/", "billing": {"address": {"country": "NL"}}}';
    const recording = join(folder, 'broken.ndjson');
    writeFileSync(
      recording,
      `${JSON.stringify({
        request: { method: 'GET', url: 'http://s.test/v2/checkout/a', headers: { accept: 'application/json' } },
        response: {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: { text: good.replace('"amount": 1.0', '"amount": "one"') },
        },
      })}\n`,
    );
    const { steps, outputs } = runAction({ command: 'validate', recording: `${recording}\n`, 'report-dir': 'r' });
    expect(steps.map((s) => [s.id, s.code])).toEqual([
      ['install', 0],
      ['judge', 0],
      ['verdict', 1],
    ]);
    expect(steps[1]?.stdout).toMatch(/^::error title=print-conformance checkout\.get\.shape::/m);
    expect(outputs['exit-code']).toBe('1');
    expect(outputs.failed).not.toBe('0');
    expect(outputs.sarif).toBe('r/results.sarif');
  }, 120_000);

  it('refuses an executable whose SHA-256 is not the one given, before anything runs', () => {
    const exe = join(folder, 'wrong-exe');
    const marker = join(folder, 'wrong-exe-ran');
    writeFileSync(exe, `#!/bin/sh\ntouch '${marker}'\n`);
    const { steps, outputs } = runAction({
      'exe-url': pathToFileURL(exe).href,
      sha256: '0'.repeat(64),
    });
    expect(steps.map((s) => [s.id, s.code])).toEqual([['install', 2]]);
    expect(steps[0]?.stdout).toContain("::error title=print-conformance::the executable's SHA-256 is");
    expect(outputs['exit-code']).toBe('');
    expect(existsSync(marker)).toBe(false);
    const noSum = runAction({ 'exe-url': pathToFileURL(exe).href });
    expect(noSum.steps.map((s) => [s.id, s.code])).toEqual([['install', 2]]);
  });

  it('hands hostile inputs to the tool as they are: nothing in them runs', () => {
    // A stand-in executable, fetched and checked as a release would be, that writes its arguments.
    const exe = join(folder, 'stand-in');
    const argsFile = join(folder, 'stand-in-args');
    writeFileSync(exe, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${argsFile}'\nexit 1\n`);
    chmodSync(exe, 0o644);
    const marker = join(folder, 'pwned');
    const ifs = `\${IFS}`;
    const hostile = {
      'base-url': `$(touch ${marker})`,
      target: `\`touch ${marker}\``,
      args: `--only\n"; touch ${marker}; echo "\n$(touch ${marker})\n--\n${ifs}touch ${marker}`,
      'report-dir': `r$(touch ${marker})`,
    };
    const { steps, outputs } = runAction({ 'exe-url': pathToFileURL(exe).href, sha256: sha256(exe), ...hostile });
    expect(steps.map((s) => [s.id, s.code])).toEqual([
      ['install', 0],
      ['judge', 0],
      ['verdict', 1],
    ]);
    expect(outputs['exit-code']).toBe('1');
    expect(readFileSync(argsFile, 'utf8').split('\n').slice(0, -1)).toEqual([
      'run',
      '--base-url',
      hostile['base-url'],
      '--target',
      hostile.target,
      '--report-dir',
      hostile['report-dir'],
      '--sarif',
      `${hostile['report-dir']}/results.sarif`,
      '--reporter',
      'github',
      '--only',
      `"; touch ${marker}; echo "`,
      `$(touch ${marker})`,
      '--',
      `${ifs}touch ${marker}`,
    ]);
    // And through the package itself: a base URL that is no URL is one clear line, exit 2.
    const real = runAction(hostile);
    expect(real.outputs['exit-code']).toBe('2');
    expect(existsSync(marker)).toBe(false);
  }, 120_000);
  it('refuses a report folder holding a line break, which would write outputs of its own', () => {
    const exe = join(folder, 'passing-stand-in');
    writeFileSync(exe, '#!/bin/sh\nexit 1\n');
    const { steps, outputs } = runAction({
      'exe-url': pathToFileURL(exe).href,
      sha256: sha256(exe),
      'report-dir': 'r\nexit-code=0',
    });
    expect(steps.map((s) => [s.id, s.code])).toEqual([
      ['install', 0],
      ['judge', 0],
      ['verdict', 2],
    ]);
    expect(steps[1]?.stdout).toContain('::error title=print-conformance::report-dir must be one line');
    expect(outputs['exit-code']).toBe('2');
  });
});
