import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { type LocalCa, loadOrCreateCa } from '../../src/tls/local-ca.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { HAS_PHP_CURL, onPath } from '../helpers/peers.js';

// The single executable (npm run build:exe) as a PHP team's CI runs it: copied into a folder of its
// own, started with a PATH that has no Node.js (only the client's PHP), a home and a cache of its
// own. Its verdicts are the package's. CI builds it first (.ci/run) and fails here without it; a
// plain `npm test` on a checkout that never built it skips these tests and says so.

const ARCH = process.arch === 'arm64' ? 'arm64' : 'x64';
const BUILT = join(ROOT, 'dist', 'exe', `print-conformance-linux-${ARCH}`);
const HAS_EXE = existsSync(BUILT);
const TARGET = 'https://test.printapi.nl/v2/';

if (!HAS_EXE && process.env.CI)
  throw new Error(`${BUILT} is missing: CI builds it with npm run build:exe before the tests`);
if (!HAS_EXE) process.stderr.write(`single executable tests skipped: no ${BUILT} (npm run build:exe)\n`);

let folder: string;
let exe: string;
let env: NodeJS.ProcessEnv;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The executable, started by its path in a folder of the test's, with no Node.js on PATH. */
function runExe(args: string[], cwd = folder, more: NodeJS.ProcessEnv = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      exe,
      args,
      { cwd, env: { ...env, ...more }, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const statuses = (file: string) =>
  (readJson(file).rules as { id: string; status: string }[]).map((rule) => `${rule.id}: ${rule.status}`);

beforeAll(() => {
  if (!HAS_EXE) return;
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-exe-'));
  // The executable alone in its folder: nothing may be unpacked beside it.
  mkdirSync(join(folder, 'opt'));
  exe = join(folder, 'opt', 'print-conformance');
  copyFileSync(BUILT, exe);
  // A PATH of the client's tools only.
  const bin = join(folder, 'bin');
  mkdirSync(bin);
  for (const tool of ['php', 'sh']) {
    const found = ['/usr/bin', '/bin', '/usr/local/bin'].map((dir) => join(dir, tool)).find((path) => existsSync(path));
    if (found) symlinkSync(found, join(bin, tool));
  }
  env = {
    PATH: bin,
    HOME: join(folder, 'home'),
    XDG_CACHE_HOME: join(folder, 'cache'),
    TMPDIR: folder,
    SHOP_CLIENT_ID: 'shop',
    SHOP_CLIENT_SECRET: 'shop-secret-value',
  };
});

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(!HAS_EXE)('the single executable, on a PATH without Node.js', () => {
  it('names its version and the Node.js it carries', async () => {
    const { code, stdout } = await runExe(['--version']);
    expect(code).toBe(0);
    const { version } = readJson(join(ROOT, 'package.json'));
    expect(stdout).toMatch(
      new RegExp(`^${version.replaceAll('.', '\\.')} \\(single executable, Node\\.js v24\\.\\d+\\.\\d+\\)\\n$`),
    );
    // No Node.js to fall back on.
    const noNode = await new Promise<number | null>((resolve) =>
      execFile('sh', ['-c', 'command -v node'], { env }, (error) => resolve(error ? (error.code as number) : 0)),
    );
    expect(noNode).not.toBe(0);
  });

  it('runs the suite on the embedded service, validates its recording with workers and writes the HTML report, as the package does', async () => {
    const run = await runExe(['--report-dir', 'run', '--record', 'run.ndjson', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\d+ passed, 0 failed, 0 warnings, 0 untested, \d+ skipped, \d+ observed — /);
    // The hint names the executable as it was started (here from the folder above it), not npx.
    expect(run.stdout).toContain('HTML report: ./opt/print-conformance report --report-dir run\n');
    const packageRun = await runCli(['--report-dir', join(folder, 'package-run'), '--quiet']);
    expect(packageRun.code).toBe(0);
    expect(statuses(join(folder, 'run', 'results.json'))).toEqual(
      statuses(join(folder, 'package-run', 'results.json')),
    );

    const validate = await runExe(['validate', 'run.ndjson', '--jobs', '2', '--report-dir', 'validate', '--quiet']);
    const packageValidate = await runCli([
      'validate',
      join(folder, 'run.ndjson'),
      '--jobs',
      '2',
      '--report-dir',
      join(folder, 'package-validate'),
      '--quiet',
    ]);
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(packageValidate.code);
    expect(statuses(join(folder, 'validate', 'results.json'))).toEqual(
      statuses(join(folder, 'package-validate', 'results.json')),
    );

    const report = await runExe(['report', '--report-dir', 'run']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toBe(`report written to ${join(folder, 'run', 'allure-report', 'index.html')}\n`);
    const page = readFileSync(join(folder, 'run', 'allure-report', 'index.html'), 'utf8');
    expect(page).toContain('<title> print-conformance </title>');
    expect(page).toMatch(/allureReportOptions = \{"id":"awesome","reportName":"print-conformance"/);
    // The generator was unpacked into the cache, and nothing beside the executable.
    const { version } = readJson(join(ROOT, 'package.json'));
    expect(readdirSync(join(folder, 'cache', 'print-conformance', version))).toEqual([
      expect.stringMatching(/^allure-[0-9a-f]{16}$/),
    ]);
    expect(readdirSync(join(folder, 'opt'))).toEqual(['print-conformance']);
  }, 240_000);

  it('unpacks the report generator into a private temporary folder when the cache cannot be written', async () => {
    const run = await runExe(['--report-dir', 'unwritable', '--quiet', '--only', 'checkout.status.open']);
    expect(run.code, run.stderr).toBe(0);
    // A cache under a file cannot be made, even by root (a container's user whose home is not theirs).
    writeFileSync(join(folder, 'not-a-folder'), '');
    const unwritable = { HOME: join(folder, 'not-a-folder'), XDG_CACHE_HOME: join(folder, 'not-a-folder', 'cache') };
    const report = await runExe(['report', '--report-dir', 'unwritable'], folder, unwritable);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('report written to');
    const { version } = readJson(join(ROOT, 'package.json'));
    const temporary = join(folder, `print-conformance-${process.getuid?.() ?? 0}`);
    expect(statSync(temporary).mode & 0o077).toBe(0);
    expect(readdirSync(join(temporary, version))).toEqual([expect.stringMatching(/^allure-[0-9a-f]{16}$/)]);
  }, 120_000);

  it('opens no debugger on SIGUSR1 and stops gracefully on SIGHUP', async () => {
    const child = spawn(exe, ['serve'], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    while (!stdout.includes('\n') && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGUSR1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stderr).not.toMatch(/Debugger listening|inspector/i);
    expect(child.exitCode).toBeNull();
    const exited = once(child, 'exit');
    child.kill('SIGHUP');
    expect(await exited).toEqual([0, null]);
  });

  describe.skipIf(!process.env.CI && !(onPath('php') && HAS_PHP_CURL))('proxy -- COMMAND', () => {
    let ca: LocalCa;
    let service: ReferenceService;
    // The client's other HTTPS host, which the proxy passes on through a blind tunnel.
    let elsewhere: Server;
    beforeAll(async () => {
      ca = await loadOrCreateCa(join(folder, 'ca'));
      service = await startReferenceService({
        tls: await ca.maker.issue(['test.printapi.nl']),
        publicUrl: TARGET,
        clientId: 'shop',
        clientSecret: 'shop-secret-value',
      });
      const { certPem: cert, keyPem: key } = await ca.maker.issue(['elsewhere.test']);
      elsewhere = createServer({ cert, key }, (_, response) => {
        response.end('pong');
      });
      await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await service?.close();
      await new Promise((resolve) => elsewhere?.close(resolve));
    });

    it('intercepts a PHP client whose code holds the real host, and judges its traffic', async () => {
      const session = await runExe([
        'proxy',
        '--target',
        TARGET,
        '--connect-to',
        `test.printapi.nl:443:127.0.0.1:${new URL(service.baseUrl).port}`,
        '--connect-to',
        `elsewhere.test:443:127.0.0.1:${(elsewhere.address() as AddressInfo).port}`,
        '--ca-dir',
        ca.dir,
        '--report-dir',
        'proxy',
        '--',
        'php',
        join(ROOT, 'test', 'fixtures', 'clients', 'shop.php'),
      ]);
      expect(session.code, session.stderr).toBe(0);
      expect(session.stdout).toMatch(/checkout set-up: 201/);
      expect(session.stdout).toMatch(/upload: 200/);
      expect(session.stdout).toMatch(/elsewhere: pong/);
      const results = readJson(join(folder, 'proxy', 'results.json'));
      expect(results.summary).toMatchObject({ failed: 0, untested: 0 });
      expect(results.rules.find((rule: { id: string }) => rule.id === 'client.given-urls')?.status).toBe('passed');
    }, 120_000);
  });
});
