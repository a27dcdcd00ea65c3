// `npm run build:exe`: the tool as one executable for machines without Node.js, written to
// dist/exe/print-conformance-linux-<arch>. It is Node.js 24 (the registry's node-linux-<arch>
// package, as CI takes its Node.js lines) with the built CLI injected as a single executable
// application. Run after `npm run build`: it bundles dist/, the code the package runs.
//
// esbuild bundles the CLI into one CommonJS file, the only form Node.js 24 runs as an application's
// main script; it is the bundler vite and tsx already bring, fast, and it keeps the code readable
// enough to debug. What it cannot follow is made static below, each rewrite checked so that a
// change in the code it rewrites stops the build instead of breaking the executable. The validate
// worker travels as a second bundle, carried as an asset and started from its text. The report
// generator (allure and what it loads) must be files, since it loads its plugins by name and reads
// its page's template from disk: it travels as an archive, unpacked on first use into the cache.

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const ARCHES = { x64: 'x64', arm64: 'arm64' };
const hostArch = ARCHES[process.arch];
if (process.platform !== 'linux' || !hostArch) {
  console.error(`build:exe makes Linux executables for x64 and arm64, not ${process.platform}-${process.arch}`);
  process.exit(1);
}
// `--arch arm64` (or x64): the executable for another architecture, built on this machine.
const archArgument = process.argv.indexOf('--arch');
const arch = archArgument === -1 ? hostArch : ARCHES[process.argv[archArgument + 1]];
if (!arch) {
  console.error(`build:exe: --arch takes x64 or arm64, not ${process.argv[archArgument + 1] ?? 'nothing'}`);
  process.exit(2);
}
const NODE_MAJOR = 24;
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const say = (line) => process.stderr.write(`build:exe: ${line}\n`);

function ciCache() {
  const xdg = process.env.XDG_CACHE_HOME;
  const cache = xdg && isAbsolute(xdg) ? xdg : join(process.env.HOME || homedir() || tmpdir(), '.cache');
  return join(cache, 'print-conformance-ci');
}

function npmInstall(prefix, spec) {
  mkdirSync(prefix, { recursive: true });
  execFileSync(
    'npm',
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error', spec],
    { stdio: 'inherit' },
  );
}

/** Node.js 24 for this machine's architecture from the registry, where .ci/run keeps its Node.js lines. */
function nodeBinary() {
  const prefix = join(ciCache(), `node-${NODE_MAJOR}`);
  npmInstall(prefix, `node-linux-${hostArch}@${NODE_MAJOR}`);
  return join(prefix, 'node_modules', `node-linux-${hostArch}`, 'bin', 'node');
}

/** The versions of Node.js 24 the registry has for an architecture. */
function publishedVersions(forArch) {
  const listed = JSON.parse(
    execFileSync('npm', ['view', '--json', `node-linux-${forArch}`, 'versions'], { encoding: 'utf8' }),
  );
  return new Set([listed].flat().filter((version) => version.startsWith(`${NODE_MAJOR}.`)));
}

const byVersion = (a, b) => {
  const [x, y] = [a, b].map((version) => version.split('.').map(Number));
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/**
 * Node.js 24 for another architecture: npm installs no package for another CPU, so its archive is
 * fetched with npm pack and unpacked. The blob is made by this machine's Node.js of the very same
 * version (a blob's format is that of the version reading it): the newest both packages publish.
 */
function foreignNodeBinaries() {
  const here = publishedVersions(hostArch);
  const version = [...publishedVersions(arch)]
    .filter((v) => here.has(v))
    .sort(byVersion)
    .at(-1);
  if (!version) throw new Error(`no Node.js ${NODE_MAJOR} published for both ${hostArch} and ${arch}`);
  const folder = join(ciCache(), `node-${version}-${arch}`);
  const target = join(folder, 'package', 'bin', 'node');
  if (!existsSync(target)) {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    const archive = execFileSync(
      'npm',
      ['pack', '--silent', '--pack-destination', folder, `node-linux-${arch}@${version}`],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .at(-1);
    execFileSync('tar', ['-xzf', join(folder, archive), '-C', folder]);
    rmSync(join(folder, archive));
  }
  const hostPrefix = join(ciCache(), `node-${version}-${hostArch}`);
  npmInstall(hostPrefix, `node-linux-${hostArch}@${version}`);
  return { target, maker: join(hostPrefix, 'node_modules', `node-linux-${hostArch}`, 'bin', 'node'), version };
}

/** The strip of binutils for the target's architecture, when this machine has one. */
function stripTool() {
  const names = arch === hostArch ? ['strip'] : [`${arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu-strip`];
  for (const name of names) {
    try {
      execFileSync(name, ['--version'], { stdio: 'ignore' });
      return name;
    } catch {}
  }
  return undefined;
}

/** The schemas as the package reads them from schemas/, to be carried in the bundle. */
function schemaTexts() {
  const names = readdirSync(join(ROOT, 'schemas')).filter((name) => name.endsWith('.json'));
  return Object.fromEntries(
    names.map((name) => [name.replace(/\.json$/, ''), readFileSync(join(ROOT, 'schemas', name), 'utf8')]),
  );
}

// The built files' text that esbuild cannot follow, and what the bundle has in its place.
const REWRITES = {
  // The package's folder is found by walking up to package.json: in the executable there is none.
  'dist/src/contract/package-root.js': {
    whole: () =>
      `export const PACKAGE_ROOT = ${JSON.stringify(`/print-conformance-${pkg.version}`)};\n` +
      `export const TOOL_NAME = ${JSON.stringify(pkg.name)};\nexport const TOOL_VERSION = ${JSON.stringify(pkg.version)};\n`,
  },
  // The schemas are read from files, ajv and the precompiled validators through createRequire.
  'dist/src/contract/schemas.js': {
    prepend: () => `const SCHEMA_TEXTS = ${JSON.stringify(schemaTexts())};\n`,
    replace: [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the built code's own template literal
      ["readFileSync(join(PACKAGE_ROOT, 'schemas', `${name}.json`), 'utf8')", 'SCHEMA_TEXTS[name]'],
      ['createRequire(import.meta.url)', 'require'],
      ["requireHere('ajv/dist/2020.js')", "require('ajv/dist/2020.js')"],
      ['requireHere(file)', "require('./schema-validators.cjs')"],
    ],
  },
  'dist/src/validate/xml.js': { replace: [["createRequire(import.meta.url)('saxes')", "require('saxes')"]] },
  'dist/proxy/llhttp-binding.js': {
    replace: [["createRequire(import.meta.url)('_http_common')", "require('_http_common')"]],
  },
  // The worker's module is no file in the executable: its bundle is started from its text.
  'dist/src/recording/judge-threads.js': {
    replace: [
      [
        "new Worker(new URL('./judge-worker.js', import.meta.url), {",
        "new Worker(require('node:sea').getAsset('judge-worker.cjs', 'utf8'), { eval: true,",
      ],
    ],
  },
  // Only the package's branch resolves allure; the executable's unpacks it.
  'dist/src/report/html-report.js': { replace: [['createRequire(import.meta.url)', 'createRequire(__filename)']] },
  // A CommonJS main script has no top-level await.
  'dist/src/cli/main.js': {
    replace: [
      [
        'await cli.parseAsync();',
        'void cli.parseAsync().catch((error) => fail(error instanceof Error ? error.message : String(error), error));',
      ],
    ],
  },
};

const rewritesDone = new Set();
const rewritePlugin = {
  name: 'print-conformance-rewrites',
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const key = relative(ROOT, args.path).split(sep).join('/');
      const rewrite = REWRITES[key];
      if (!rewrite) return undefined;
      rewritesDone.add(key);
      let text = rewrite.whole ? rewrite.whole() : readFileSync(args.path, 'utf8');
      for (const [from, to] of rewrite.replace ?? []) {
        if (!text.includes(from)) throw new Error(`${key} no longer holds ${from}: update scripts/build-exe.mjs`);
        text = text.replaceAll(from, to);
      }
      return { contents: `${rewrite.prepend?.() ?? ''}${text}`, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

async function bundle(entry, outfile) {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    target: `node${NODE_MAJOR}`,
    format: 'cjs',
    plugins: [rewritePlugin],
    logLevel: 'silent',
    legalComments: 'none',
    // Libraries make their require with createRequire(import.meta.url); in a CommonJS bundle
    // import.meta is empty, so it is the bundle's own place (the executable) instead.
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: "var __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    // A source map would double the executable for stack traces no user reads.
    sourcemap: false,
  });
  // What esbuild cannot see in the tool's own code is a bug in the executable: every warning there stops the build.
  const own = result.warnings.filter(
    (warning) => warning.location?.file && !warning.location.file.includes('node_modules'),
  );
  if (own.length > 0) {
    for (const warning of own) say(`${warning.location.file}:${warning.location.line}: ${warning.text}`);
    throw new Error('the bundle has code esbuild cannot follow');
  }
}

/** Every package allure needs at run time, found as Node.js would resolve them from node_modules. */
function packageClosure(name, from, found = new Map()) {
  let manifest;
  try {
    manifest = createRequire(join(from, 'noop.js')).resolve(`${name}/package.json`);
  } catch {
    // Some packages do not export their package.json: look for the folder as Node.js would.
    for (let dir = from; ; dir = dirname(dir)) {
      const candidate = join(dir, 'node_modules', name, 'package.json');
      try {
        statSync(candidate);
        manifest = candidate;
        break;
      } catch {}
      if (dirname(dir) === dir) return found;
    }
  }
  const folder = dirname(manifest);
  if (found.has(folder)) return found;
  const meta = JSON.parse(readFileSync(manifest, 'utf8'));
  found.set(folder, meta.name);
  for (const dependency of Object.keys({ ...meta.dependencies, ...meta.optionalDependencies }))
    packageClosure(dependency, folder, found);
  return found;
}

/** The files of the packages, their own (not those of packages nested in them), as the archive holds them. */
function packageFiles(folders) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (entry.isFile() && !/\.(map|d\.ts|d\.mts|d\.cts|md)$/.test(entry.name)) files.push(path);
    }
  };
  for (const folder of folders) walk(folder);
  return files;
}

/** The archive src/output/single-executable.ts unpacks: gzip of the index's length, the index, the files. */
function archive(files, base) {
  const contents = files.map((file) => readFileSync(file));
  const index = Buffer.from(
    JSON.stringify(
      files.map((file, i) => ({ path: relative(base, file).split(sep).join('/'), size: contents[i].length })),
    ),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32BE(index.length);
  return gzipSync(Buffer.concat([length, index, ...contents]), { level: 9 });
}

const work = mkdtempSync(join(tmpdir(), 'print-conformance-exe-'));
try {
  const foreign = arch === hostArch ? undefined : foreignNodeBinaries();
  const node = foreign?.target ?? nodeBinary();
  const maker = foreign?.maker ?? node;
  say(
    foreign
      ? `Node.js v${foreign.version} from node-linux-${arch}@${NODE_MAJOR}, its blob made by node-linux-${hostArch}@${foreign.version}`
      : `Node.js ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()} from node-linux-${arch}@${NODE_MAJOR}`,
  );
  await bundle('dist/src/cli/main.js', join(work, 'main.cjs'));
  // The worker's loop itself: its package entry turns V8's compile cache on and then imports the
  // loop with a top-level await, which a CommonJS bundle cannot hold (and code in the executable
  // is compiled from its blob, not from files a cache could key).
  await bundle('dist/src/recording/judge-worker-loop.js', join(work, 'judge-worker.cjs'));
  const missed = Object.keys(REWRITES).filter((key) => !rewritesDone.has(key));
  if (missed.length > 0)
    throw new Error(`not bundled, so not rewritten: ${missed.join(', ')}: update scripts/build-exe.mjs`);

  const allure = packageClosure('allure', ROOT);
  const files = packageFiles([...allure.keys()]);
  writeFileSync(join(work, 'allure.archive'), archive(files, ROOT));
  say(`report generator: ${allure.size} packages, ${files.length} files`);

  writeFileSync(
    join(work, 'sea-config.json'),
    JSON.stringify({
      main: join(work, 'main.cjs'),
      output: join(work, 'sea.blob'),
      disableExperimentalSEAWarning: true,
      // The compiled code travels too: a start skips compiling the bundle. V8's code cache is for
      // the architecture that made it: another's executable compiles at start instead.
      useCodeCache: !foreign,
      // SIGUSR1 would open the inspector on 127.0.0.1:9229 (code run by anyone on the machine):
      // off from the first instant (the CLI also takes the signal over once it runs).
      execArgv: ['--disable-sigusr1'],
      assets: { 'judge-worker.cjs': join(work, 'judge-worker.cjs'), allure: join(work, 'allure.archive') },
    }),
  );
  execFileSync(maker, ['--experimental-sea-config', join(work, 'sea-config.json')], { stdio: 'inherit' });

  const out = join(ROOT, 'dist', 'exe');
  mkdirSync(out, { recursive: true });
  const target = join(out, `print-conformance-linux-${arch}`);
  const building = `${target}.building`;
  copyFileSync(node, building);
  chmodSync(building, 0o755);
  // Node.js ships with its debug information and symbol table (about 18 MiB), which no user reads:
  // stripped before the blob goes in, the verdicts unchanged.
  const strip = stripTool();
  if (strip) execFileSync(strip, ['--strip-all', building]);
  else say(`no strip for ${arch} (binutils): the executable keeps Node.js's debug information`);
  const { inject } = await import('postject');
  await inject(building, 'NODE_SEA_BLOB', readFileSync(join(work, 'sea.blob')), { sentinelFuse: SEA_FUSE });
  // Moved into place whole: a failed build leaves no executable that half works.
  execFileSync('mv', ['-f', building, target]);
  const size = `${(statSync(target).size / 1024 / 1024).toFixed(1)} MiB`;
  if (foreign) say(`${relative(ROOT, target)}: ${size} (for ${arch}: not started here)`);
  else {
    const version = execFileSync(target, ['--version'], { encoding: 'utf8', env: { ...process.env, PATH: '' } }).trim();
    say(`${relative(ROOT, target)}: ${size}, --version ${version}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
