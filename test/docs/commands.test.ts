import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { BIN, ROOT } from '../helpers/cli.js';

// Every command example of the README and docs/ runs, so the docs cannot drift from the tool. Each
// page's fenced `sh` blocks run in order in a temporary folder of the page's own, `npx
// print-conformance` standing for the built CLI and http://127.0.0.1:8080/v2/ (where `serve --port
// 8080` listens) for a reference service of the test's own, which is conformant: each command exits
// 0, as a reader expects of it, unless its line promises otherwise (`# exits 1: <why>`). Any other
// exit code (a verdict the example does not promise, an option the tool no longer has, a file it
// cannot read) fails the block. A block that cannot run offline starts with "# not run by the docs
// test: <why>".

const NOT_RUN = /^# not run by the docs test: (.*)$/;
const DOCUMENTED_BASE = 'http://127.0.0.1:8080/v2/';

interface Block {
  page: string;
  index: number;
  text: string;
  notRun?: string;
}

function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

function blocksOf(page: string): Block[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match, index) => {
    const body = match[1] as string;
    const notRun = NOT_RUN.exec(body.split('\n', 1)[0] ?? '')?.[1];
    return { page, index: index + 1, text: body, ...(notRun === undefined ? {} : { notRun }) };
  });
}

/** The exit code a command promises: 0 unless its line says `# exits N`. */
function promisedExit(command: string): number {
  return Number(/#.*\bexits (\d+)\b/.exec(command)?.[1] ?? 0);
}

/** The block as a script that stops at the first command exiting other than it promises, naming it. */
function script(block: Block, base: string): string {
  const commands = block.text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  return commands
    .map(
      (command, index) =>
        `${command.replaceAll(DOCUMENTED_BASE, base)}\nrc=$?; if [ $rc -ne ${promisedExit(command)} ]; then echo "command ${index + 1} (${command
          .split(' ')
          .slice(0, 3)
          .join(' ')
          .replace(/["$`\\]/g, '')}…) exited $rc, not ${promisedExit(command)}" >&2; exit 100; fi`,
    )
    .join('\n');
}

function runScript(
  text: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', text], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

let service: ReferenceService;
let folder: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-docs-'));
  const shims = join(folder, 'bin');
  mkdirSync(shims);
  // npx of the tool is the built CLI; any other package would be fetched from a registry: refused.
  writeFileSync(
    join(shims, 'npx'),
    `#!/bin/sh\nif [ "$1" = print-conformance ]; then shift; exec "${process.execPath}" "${BIN}" "$@"; fi\necho "npx $1: no registry for the docs test" >&2\nexit 127\n`,
  );
  chmodSync(join(shims, 'npx'), 0o755);
  env = {
    ...process.env,
    PATH: `${shims}:${process.env.PATH ?? ''}`,
    FORCE_COLOR: undefined,
    GITHUB_STEP_SUMMARY: undefined,
  };
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('the docs', () => {
  it('keep the two commands of the quick start in the README', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npx print-conformance\n');
    expect(readme).toContain(
      "```sh\n# not run by the docs test: it is the project's own test run, this test among its files\nnpm test\n```",
    );
  });

  it('say why every block they do not run is not run', () => {
    const unexplained = pages()
      .flatMap(blocksOf)
      .filter((block) => block.notRun !== undefined && block.notRun.split(/\s+/).length < 3);
    expect(unexplained.map((block) => `${block.page} block ${block.index}`)).toEqual([]);
  });
});

for (const page of pages()) {
  const blocks = blocksOf(page);
  if (blocks.length === 0) continue;
  describe(page, () => {
    let cwd: string;
    beforeAll(() => {
      cwd = mkdtempSync(join(folder, `${page.replace(/\W+/g, '-')}-`));
    });
    for (const block of blocks) {
      const title = `block ${block.index}: ${block.text.split('\n').find((line) => line && !line.startsWith('#')) ?? ''}`;
      if (block.notRun !== undefined) {
        it.skip(`${title} (not run: ${block.notRun})`, () => {});
        continue;
      }
      it(title, async () => {
        const result = await runScript(script(block, service.baseUrl), cwd, env);
        expect(result.code, result.stderr).toBe(0);
      }, 240_000);
    }
  });
}
