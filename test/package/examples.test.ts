import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import yargs from 'yargs';
import { openapiCommand } from '../../src/cli/openapi-command.js';
import { commandSpecs, GLOBAL_OPTIONS } from '../../src/cli/option-specs.js';
import { proxyCommand } from '../../src/cli/proxy-command.js';
import { reportCommand } from '../../src/cli/report-command.js';
import { rulesCommand } from '../../src/cli/rules-command.js';
import { runCommand } from '../../src/cli/run-command.js';
import { serveCommand } from '../../src/cli/serve-command.js';
import { validateCommand } from '../../src/cli/validate-command.js';
import { ROOT } from '../helpers/cli.js';

// The CI examples are copied into other projects as they are, so they must work there: a Node
// that is maintained, print-conformance from a tarball the job packs (it is not on the npm
// registry, where the name could be anyone's), options the commands have, and the artefacts kept
// where the commands write them.

const folder = join(ROOT, 'examples');
const files = readdirSync(folder).filter((f) => f.endsWith('.yml'));

const cli = yargs([]);
for (const register of [
  runCommand,
  rulesCommand,
  openapiCommand,
  serveCommand,
  proxyCommand,
  validateCommand,
  reportCommand,
])
  register(cli);
const specs = commandSpecs(cli);

/** Every string in a YAML document: the scripts, whatever key holds them. */
function strings(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(strings);
  if (node && typeof node === 'object') return Object.values(node).flatMap(strings);
  return [];
}

/** A command line split into words as sh would, quotes removed and nothing expanded. */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (/\s/.test(char)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** The paths a workflow keeps: GitLab's artifacts:paths and actions/upload-artifact's path. */
function keptPaths(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(keptPaths);
  if (!node || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  const own: string[] = [];
  const artifacts = record.artifacts as { paths?: string[] } | undefined;
  if (artifacts?.paths) own.push(...artifacts.paths);
  if (typeof record.uses === 'string' && record.uses.startsWith('actions/upload-artifact')) {
    const path = (record.with as { path?: string } | undefined)?.path ?? '';
    own.push(...path.split('\n').filter(Boolean));
  }
  return [...own, ...Object.values(record).flatMap(keptPaths)];
}

interface Invocation {
  spec: string;
  command: string;
  args: string[];
}

/** The npx invocations of a script: what package each runs, and its print-conformance command. */
function invocations(script: string): Invocation[] {
  return script
    .split(/\n|&&|;/)
    .filter((line) => /\bnpx\b/.test(line))
    .map((line) => {
      const all = words(line.replace(/\\\n/g, ' '));
      const rest = all.slice(all.indexOf('npx') + 1).filter((word) => word !== '--yes' && word !== '-y');
      let spec: string;
      if (rest[0] === '--package') {
        spec = rest[1] ?? '';
        expect(rest[2], line).toBe('print-conformance');
        rest.splice(0, 3);
      } else spec = rest.shift() ?? '';
      const command = rest[0] && specs.has(rest[0]) ? (rest.shift() as string) : 'run';
      const end = rest.indexOf('--');
      return { spec, command, args: end >= 0 ? rest.slice(0, end) : rest };
    });
}

function optionValue(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : undefined;
}

describe('the CI examples', () => {
  it('cover the suite and the proxy, on GitHub Actions and GitLab', () => {
    expect(files.sort()).toEqual([
      'github-actions-action.yml',
      'github-actions-proxy.yml',
      'github-actions.yml',
      'gitlab-ci-image.yml',
      'gitlab-ci-proxy.yml',
      'gitlab-ci.yml',
    ]);
  });

  for (const file of files) {
    const text = readFileSync(join(folder, file), 'utf8');
    const document = parse(text);
    const scripts = strings(document);
    const packed = scripts.flatMap(invocations);
    // The image's examples run the executable it holds by name, with the same commands and options.
    const jobs = Object.values(document ?? {}) as { image?: unknown; script?: string[]; after_script?: string[] }[];
    const fromImage = jobs
      .filter((job) => job?.image !== undefined)
      .flatMap((job) => [...(job.script ?? []), ...(job.after_script ?? [])])
      .flatMap((script) => script.split(/\n|&&|;/))
      .filter((line) => /^\s*print-conformance\s/.test(line))
      .map((line) => {
        const rest = words(line).slice(1);
        const command = rest[0] && specs.has(rest[0]) ? (rest.shift() as string) : 'run';
        return { spec: 'image', command, args: rest };
      });
    const runs = [...packed, ...fromImage];
    // The action's example runs the tool through the action, which packs or downloads it itself.
    const action = strings(document).some((value) => /print-conformance@/.test(value));

    it(`${file} runs the tool as a package, the image or the action`, () => {
      expect(packed.length > 0 || fromImage.length > 0 || action).toBe(true);
    });

    if (packed.length > 0 || /node-version/.test(text))
      it(`${file} pins a Node that is maintained (22 or later)`, () => {
        const versions = [...text.matchAll(/node-version:\s*(\d+)|image:\s*node:(\d+)/g)].map((m) =>
          Number(m[1] ?? m[2]),
        );
        expect(versions.length).toBeGreaterThan(0);
        for (const version of versions) expect(version).toBeGreaterThanOrEqual(22);
      });

    if (packed.length > 0)
      it(`${file} runs print-conformance from a tarball it packs, never a registry name`, () => {
        expect(scripts.some((s) => /\bnpm pack\b/.test(s))).toBe(true);
        for (const { spec } of packed) expect(spec).toMatch(/^(\.|\/tmp|\$RUNNER_TEMP)\/print-conformance-\*\.tgz$/);
      });

    it(`${file} gives each command only options it has`, () => {
      for (const { command, args } of runs) {
        const known = new Set([...(specs.get(command)?.names ?? []), ...GLOBAL_OPTIONS]);
        for (const arg of args.filter((a) => a.startsWith('--')))
          expect(known, `${command} ${arg}`).toContain(arg.slice(2).split('=')[0]);
      }
    });

    it(`${file} keeps what its commands write`, () => {
      const kept = keptPaths(document);
      for (const { command, args } of runs) {
        if (command === 'run') expect(kept, file).toContain(`${optionValue(args, 'report-dir')}/`);
        if (command === 'proxy') {
          expect(kept, file).toContain(optionValue(args, 'record'));
          expect(kept, file).toContain(optionValue(args, 'summary-md'));
          expect(args, file).toContain('--target');
        }
      }
      if (/gitlab/.test(file) && runs.some((r) => r.command === 'run'))
        expect(document?.[Object.keys(document)[0] ?? '']?.artifacts?.reports?.junit).toBe('reports/junit.xml');
    });
  }
});

/** A repository with a tag on its second commit: the first commit is reachable but no ref's tip. */
function repositoryWithHistory(dir: string): { first: string; tip: string } {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', join(dir, 'origin'), '-c', 'user.name=ci', '-c', 'user.email=ci@example.com', ...args], {
      encoding: 'utf8',
    }).trim();
  execFileSync('git', ['init', '--quiet', join(dir, 'origin')]);
  git('commit', '--quiet', '--allow-empty', '-m', 'first');
  const first = git('rev-parse', 'HEAD');
  git('commit', '--quiet', '--allow-empty', '-m', 'second');
  git('tag', 'v1');
  return { first, tip: git('rev-parse', 'HEAD') };
}

describe('the GitLab examples fetch print-conformance at the ref they are given', () => {
  // The image's example fetches nothing: the tool is in the image (its entry point emptied for sh).
  const jobOf = (file: string) =>
    Object.values(parse(readFileSync(join(folder, file), 'utf8')))[0] as {
      before_script?: string[];
      image?: { entrypoint?: string[] };
    };
  it('the image example empties the entry point, as GitLab needs to run its script with sh', () => {
    expect(jobOf('gitlab-ci-image.yml').image?.entrypoint).toEqual(['']);
  });
  for (const file of files.filter((f) => f.startsWith('gitlab') && jobOf(f).before_script)) {
    // The before_script's git lines, run as the job runs them, into a temporary folder.
    const gitLines = (jobOf(file).before_script ?? []).filter((line) => /^git\b/.test(line));

    it(`${file} checks out a pinned commit, a tag or a branch`, () => {
      expect(gitLines.length).toBeGreaterThan(0);
      const dir = mkdtempSync(join(tmpdir(), 'print-conformance-gitlab-'));
      try {
        const { first, tip } = repositoryWithHistory(dir);
        for (const [ref, expected] of [
          [first, first],
          ['v1', tip],
        ]) {
          const checkout = join(dir, `checkout-${ref}`);
          const script = gitLines
            .map((line) => line.replaceAll(/(\/tmp\/)?print-conformance\b/g, checkout))
            .join(' && ');
          execFileSync('sh', ['-c', script], {
            cwd: dir,
            env: {
              ...process.env,
              PRINT_CONFORMANCE_REPO: `file://${join(dir, 'origin')}`,
              PRINT_CONFORMANCE_REF: ref,
            },
            stdio: 'pipe',
          });
          expect(execFileSync('git', ['-C', checkout, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim(), ref).toBe(
            expected,
          );
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
