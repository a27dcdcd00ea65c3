import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

// The arm64 executable (npm run build:exe -- --arch arm64), built on any machine, gives the
// package's verdicts: on an x86-64 machine it runs under Debian's qemu-user-static (with the arm64
// C library of multiarch). CI builds it and has both (.ci/run) and fails here without them; a plain
// `npm test` elsewhere skips these tests and says why.

const BUILT = join(ROOT, 'dist', 'exe', 'print-conformance-linux-arm64');
const NATIVE = process.arch === 'arm64';

function onPath(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const QEMU = NATIVE ? undefined : 'qemu-aarch64-static';
const missing = [
  existsSync(BUILT) ? undefined : `no ${BUILT} (npm run build:exe -- --arch arm64)`,
  NATIVE || onPath('qemu-aarch64-static') ? undefined : 'no qemu-aarch64-static (apt-get install qemu-user-static)',
  NATIVE || existsSync('/lib/ld-linux-aarch64.so.1')
    ? undefined
    : 'no arm64 C library (dpkg --add-architecture arm64; apt-get install libc6:arm64)',
].filter((reason): reason is string => reason !== undefined);

if (missing.length > 0 && process.env.CI) throw new Error(`arm64 executable tests cannot run: ${missing.join('; ')}`);
if (missing.length > 0) process.stderr.write(`arm64 executable tests skipped: ${missing.join('; ')}\n`);

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-arm64-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function runArm64(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [file, argv] = QEMU ? [QEMU, [BUILT, ...args]] : [BUILT, args];
  return new Promise((resolve) => {
    execFile(
      file,
      argv,
      {
        cwd: folder,
        env: { PATH: '/usr/bin:/bin', HOME: join(folder, 'home'), TMPDIR: folder },
        timeout: 300_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

const statuses = (file: string) =>
  (JSON.parse(readFileSync(file, 'utf8')).rules as { id: string; status: string }[]).map((r) => `${r.id}: ${r.status}`);
const counts = (stdout: string) =>
  /^\d+ passed, \d+ failed, \d+ warnings, \d+ untested, \d+ skipped, \d+ observed/m.exec(stdout)?.[0];

describe.skipIf(missing.length > 0)(`the arm64 executable${QEMU ? ', under qemu' : ''}`, () => {
  it('names its version and gives the package’s verdicts on the embedded service', async () => {
    const version = await runArm64(['--version']);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+ \(single executable, Node\.js v24\.\d+\.\d+\)\n$/);
    const run = await runArm64(['run', '--quiet', '--report-dir', 'arm64']);
    expect(run.code, run.stderr).toBe(0);
    const packageRun = await runCli(['run', '--quiet', '--report-dir', join(folder, 'package')]);
    expect(packageRun.code).toBe(0);
    expect(counts(run.stdout)).toBe(counts(packageRun.stdout));
    expect(counts(run.stdout)).toBeDefined();
    expect(statuses(join(folder, 'arm64', 'results.json'))).toEqual(statuses(join(folder, 'package', 'results.json')));
  }, 600_000);
});
