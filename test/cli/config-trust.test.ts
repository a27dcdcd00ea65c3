import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateConfigFile } from '../../src/cli/settings.js';
import { runCli } from '../helpers/cli.js';
import { serverErrorRecording } from '../helpers/server-error-recording.js';

// A config file found upward decides where the token goes and which rules count: it is taken only
// where git or npm would trust it, the search stops at the repository or the home folder, the
// run names the file it took, and a FIFO or a device given as one is refused at once.

const CONFIG = 'print-conformance.config.json';
const uid = process.getuid?.();

let folder: string;
let recording: string;
beforeAll(() => {
  ({ folder, recording } = serverErrorRecording('config-trust'));
});
afterAll(() => {
  chmodSync(folder, 0o700);
  rmSync(folder, { recursive: true, force: true });
});

/** A shared folder (world-writable, as the temp folder is) with a config in it and a user's folder below. */
function planted(config: object): { shared: string; own: string } {
  const shared = mkdtempSync(join(folder, 'shared-'));
  const own = join(shared, 'own');
  mkdirSync(own, { mode: 0o755 });
  writeFileSync(join(shared, CONFIG), JSON.stringify(config));
  chmodSync(shared, 0o777);
  return { shared, own };
}

describe.skipIf(uid === undefined)('a config file found upward', () => {
  it('is not taken from a folder others may write to, nor when others may write to it or own it', () => {
    const { shared, own } = planted({ skip: ['http.'] });
    expect(locateConfigFile([], own)).toEqual({
      ignored: { path: join(shared, CONFIG), reason: 'other users may write to its folder' },
    });
    chmodSync(shared, 0o755);
    expect(locateConfigFile([], own).path).toBe(join(shared, CONFIG));
    expect(locateConfigFile([], own, (uid as number) + 1).ignored?.reason).toBe('it belongs to another user');
    chmodSync(join(shared, CONFIG), 0o666);
    expect(locateConfigFile([], own).ignored?.reason).toBe('other users may write to it');
  });

  it('is searched no higher than the repository or the home folder', () => {
    const root = mkdtempSync(join(folder, 'above-'));
    writeFileSync(join(root, CONFIG), '{}');
    const repository = join(root, 'repository');
    mkdirSync(join(repository, '.git'), { recursive: true });
    mkdirSync(join(repository, 'src'));
    expect(locateConfigFile([], join(repository, 'src'))).toEqual({});
    expect(locateConfigFile([], root).path).toBe(join(root, CONFIG));
  });

  it('planted in a shared folder does not turn a failing validate green; the warning says why', async () => {
    const { own } = planted({ skip: ['http.'] });
    const result = await runCli(['validate', recording, '--report-dir', join(own, 'reports')], { cwd: own });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/warning: .*print-conformance\.config\.json is not used: other users may write/);
  });

  it("is named in run's header when taken", async () => {
    const project = mkdtempSync(join(folder, 'project-'));
    writeFileSync(join(project, CONFIG), JSON.stringify({ reportDir: 'r' }));
    const result = await runCli(['run', '--base-url', 'http://127.0.0.1:9/v2/', '--timeout', '2'], { cwd: project });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`(options from ${join(project, CONFIG)})`);
  });
});

describe('a config file that is no file', () => {
  it('is refused in one line, a FIFO and a device alike, without waiting', async () => {
    const fifo = join(folder, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const config of [fifo, '/dev/zero']) {
      const result = await runCli(['validate', recording, '--config', config], { timeoutMs: 15_000 });
      expect(result.code, config).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^print-conformance: config file ${config}: not a regular file\\n$`));
    }
  });
});
