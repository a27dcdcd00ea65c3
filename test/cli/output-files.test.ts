import { execFileSync } from 'node:child_process';
import {
  createWriteStream,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { makeFolders } from '../../src/output/make-folders.js';
import { openOutputFile, writeFileWhole } from '../../src/output/output-file.js';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { serverErrorRecording } from '../helpers/server-error-recording.js';

// Output folders are often shared (/tmp, a CI workspace). Whoever can write one must not be able
// to make a run write elsewhere by planting a link where an output file goes, or where its
// temporary file will be: such a link is refused or replaced, never followed.

const VICTIM_TEXT = 'a file the user owns, which no run of print-conformance should touch\n';

let folder: string;
let victim: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-outputs-'));
  victim = join(mkdtempSync(join(tmpdir(), 'print-conformance-victim-')), 'victim.txt');
  writeFileSync(victim, VICTIM_TEXT);
});
afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(join(victim, '..'), { recursive: true, force: true });
});

/** A symbolic link at `path` to the victim. */
function plant(path: string): string {
  symlinkSync(victim, path);
  return path;
}

describe('output files and planted links', () => {
  it('the proxy refuses to record through a link: --record, --har', async () => {
    for (const option of ['recordFile', 'harFile'] as const) {
      const file = plant(join(folder, `${option}.out`));
      await expect(startProxy({ target: 'http://127.0.0.1:9/v2/', [option]: file })).rejects.toMatchObject({
        code: 'EUNSAFE',
        message: expect.stringContaining('symbolic link'),
      });
    }
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('print-conformance proxy says so in one line, exit 2', async () => {
    const file = plant(join(folder, 'traffic.ndjson'));
    const result = await runCli(['proxy', '--target', 'http://127.0.0.1:9/v2/', '--record', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^print-conformance: cannot write the recording: .*traffic\.ndjson is a symbolic link/,
    );
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('refuses a recording with other names (a hard link to another file)', () => {
    const file = join(folder, 'traffic.ndjson');
    try {
      linkSync(victim, file);
    } catch {
      return; // another file system: no hard link can be made here
    }
    expect(() => openOutputFile(file, 'append')).toThrow(/hard links/);
    expect(() => openOutputFile(file, 'replace')).toThrow(/hard links/);
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('refuses --record and --har naming the same file, which would lose the recording', async () => {
    const file = join(folder, 'same');
    const result = await runCli(['proxy', '--target', 'http://127.0.0.1:9/v2/', '--record', file, '--har', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^print-conformance: --record and --har name the same file/);
  });

  it('writes the proxy summary (--summary-md) in place of a link, never through it', async () => {
    const summary = plant(join(folder, 'summary.md'));
    const proxy = await startListeningCli(['proxy', '--target', 'http://127.0.0.1:9/v2/', '--summary-md', summary]);
    await proxy.stop();
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
    expect(lstatSync(summary).isSymbolicLink()).toBe(false);
    expect(readFileSync(summary, 'utf8')).toMatch(/print-conformance/i);
  });

  it('writes reports in place of links planted at them or at a temporary name one could guess', async () => {
    const reports = join(folder, 'reports');
    mkdirSync(reports);
    // At the reports, and at the temporary names an earlier release used (its process id).
    for (const name of ['results.json', 'junit.xml']) {
      plant(join(reports, name));
      for (let pid = 1; pid < 4_000; pid += 1) plant(join(reports, `.${name}.${pid}.tmp`));
    }
    plant(join(folder, 'summary.md'));
    const { folder: recordingFolder, recording } = serverErrorRecording('outputs');
    const result = await runCli([
      'validate',
      recording,
      '--report-dir',
      reports,
      '--summary-md',
      join(folder, 'summary.md'),
    ]);
    rmSync(recordingFolder, { recursive: true, force: true });
    expect(result.code, result.stderr).toBe(1);
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
    for (const name of ['results.json', 'junit.xml'])
      expect(lstatSync(join(reports, name)).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')).summary).toBeDefined();
    expect(readFileSync(join(folder, 'summary.md'), 'utf8')).toMatch(/http\.no-server-error/);
  });

  it('writes a file whole through a new temporary file of a name no one can guess', () => {
    const file = join(folder, 'report.txt');
    plant(file);
    writeFileWhole(file, 'report');
    writeFileWhole(file, 'report again');
    expect(readFileSync(file, 'utf8')).toBe('report again');
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
    // Nothing left behind.
    expect(readdirSync(folder)).toEqual(['report.txt']);
  });
});

describe('recordings that can be read only once', () => {
  it.runIf(process.platform === 'linux')(
    'validate reads a named pipe (as <(zcat …) gives) as it comes; replay refuses one, and standard input, in one line',
    async () => {
      const made = serverErrorRecording('pipe');
      const fifo = join(made.folder, 'pipe.ndjson');
      execFileSync('mkfifo', [fifo]);
      const writing = new Promise<void>((resolve, reject) => {
        const pipe = createWriteStream(fifo);
        pipe.on('error', reject);
        pipe.end(readFileSync(made.recording), () => resolve());
      });
      const validated = await runCli(['validate', fifo, '--report-dir', join(made.folder, 'r')], { timeoutMs: 20_000 });
      await writing;
      expect(validated.code, validated.stderr).toBe(1);
      expect(validated.stdout).toMatch(/FAIL\s+http\.no-server-error/);
      for (const source of [fifo, '-']) {
        const replayed = await runCli(['replay', source, '--target', 'http://127.0.0.1:9/v2/'], { timeoutMs: 20_000 });
        expect(replayed.code, source).toBe(2);
        expect(replayed.stderr, source).toMatch(
          /^print-conformance: replay reads its recordings twice .* can be read only once; save the recording to a file\n$/,
        );
      }
      rmSync(made.folder, { recursive: true, force: true });
    },
  );
});

describe('recordings given in a form validate cannot judge', () => {
  it('refuses a recording that is not valid gzip data and one given twice, each in one line', async () => {
    const made = serverErrorRecording('forms');
    const packed = join(made.folder, 'one.ndjson.gz');
    // A gzip header, then no deflate stream.
    writeFileSync(
      packed,
      Buffer.concat([gzipSync(readFileSync(made.recording)).subarray(0, 4), Buffer.from('garbage')]),
    );
    const linked = join(made.folder, 'link.ndjson');
    symlinkSync(made.recording, linked);
    const cases: [string[], RegExp][] = [
      [[packed], /^print-conformance: cannot read \S+one\.ndjson\.gz: (?:not valid gzip data|gzip data cut off)\n$/],
      [
        [made.recording, made.recording],
        /^print-conformance: \S+one\.ndjson is given twice \(once more\): its exchanges would count twice; give each recording once\n$/,
      ],
      [[made.recording, linked], /^print-conformance: \S+link\.ndjson is given twice \(as \S+one\.ndjson too\)/],
    ];
    for (const [files, said] of cases) {
      const result = await runCli(['validate', ...files, '--report-dir', join(made.folder, 'r')]);
      expect(result.code, files.join(' ')).toBe(2);
      expect(result.stderr, files.join(' ')).toMatch(said);
    }
    rmSync(made.folder, { recursive: true, force: true });
  });
});

describe('output folders that cannot be made', () => {
  it('makes the folders missing above an output, and refuses one under a file', () => {
    makeFolders(join(folder, 'a', 'b', 'c'));
    expect(lstatSync(join(folder, 'a', 'b', 'c')).isDirectory()).toBe(true);
    writeFileSync(join(folder, 'file'), 'x');
    expect(() => makeFolders(join(folder, 'file', 'sub'))).toThrow(/ENOTDIR/);
    expect(() => makeFolders(join(folder, 'file'))).toThrow(/ENOTDIR/);
  });

  it('names the file it could not write, never its temporary one, and leaves nothing behind', () => {
    mkdirSync(join(folder, 'taken.json'));
    mkdirSync(join(folder, 'taken.json', 'inside'));
    expect(() => writeFileWhole(join(folder, 'taken.json'), '{}')).toThrow(
      new RegExp(`^cannot write ${join(folder, 'taken.json')}: `),
    );
    expect(readdirSync(folder)).toEqual(['taken.json']);
  });

  // Node's own recursive mkdir retries for ever where the system answers ENOENT under a folder
  // that exists, as procfs does: the command spun at full CPU. Run as a child, so a regression
  // is killed by the time limit instead of hanging the test run.
  it.runIf(process.platform === 'linux')(
    'says in one line, exit 2, that a report folder under /proc cannot be made, for every output option',
    async () => {
      const made = serverErrorRecording('proc-folders');
      const { recording } = made;
      for (const args of [
        ['--report-dir', '/proc/print-conformance-x'],
        ['--report-dir', '/proc/print-conformance-x/y'],
        ['--report-dir', folder, '--junit', '/proc/print-conformance-x/junit.xml'],
        ['--report-dir', folder, '--allure-dir', '/proc/print-conformance-x/allure'],
        // /proc itself exists and says it may be written, then refuses every new file in it: the
        // refusal comes before the run, naming the option, never a temporary file after it.
        ['--report-dir', folder, '--sarif', '/proc/print-conformance-x.sarif'],
        ['--report-dir', folder, '--json-report', '/proc/print-conformance-x.json'],
        ['--report-dir', '/proc'],
      ]) {
        const run = await runCli(['validate', recording, ...args], { timeoutMs: 20_000 });
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
        expect(run.stderr).toMatch(
          /^print-conformance: --(report-dir|junit|allure-dir|sarif|json-report) \/proc(\/print-conformance-x|\W)/,
        );
        expect(run.stderr).not.toContain('.tmp');
      }
      rmSync(made.folder, { recursive: true, force: true });
    },
  );
});
