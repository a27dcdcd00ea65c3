import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { BIN, runCli } from '../helpers/cli.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';

// `proxy --target URL -- COMMAND`: the proxy around a client's own tests. The clients here are
// small node scripts that read PRINT_CONFORMANCE_PROXY_URL, as an application's tests would.

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-wrap-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A JSON client: places an order, sets its checkout up (with `returnUrl` if given) and reads it back. */
function client(name: string, options: { returnUrl?: string; after?: string } = {}): string {
  const body = JSON.parse(checkoutRequestJson());
  if (options.returnUrl !== undefined) body.returnUrl = options.returnUrl;
  const file = join(folder, `${name}.mjs`);
  writeFileSync(
    file,
    `const base = process.env.PRINT_CONFORMANCE_PROXY_URL;
const json = { 'content-type': 'application/json', accept: 'application/json' };
const order = await (await fetch(base + 'orders', { method: 'POST', headers: json })).json();
const url = order.checkout.setupUrl;
if (!url.startsWith(base)) throw new Error('the checkout URL does not go through the proxy: ' + url);
await (await fetch(url, { method: 'POST', headers: json, body: ${JSON.stringify(JSON.stringify(body))} })).text();
await (await fetch(url, { headers: { accept: 'application/json' } })).text();
${options.after ?? ''}
`,
  );
  return file;
}

/** The traffic of these clients: checkouts in JSON, no uploads. */
const NARROW = ['--format', 'json', '--skip', 'upload.', '--summary-interval', '0'];

describe('print-conformance proxy -- COMMAND', () => {
  it('exits 0 when the command passes and its traffic keeps every rule it tests', async () => {
    const summary = join(folder, 'good.md');
    const result = await runCli([
      'proxy',
      '--target',
      service.baseUrl,
      ...NARROW,
      '--summary-md',
      summary,
      '--',
      process.execPath,
      client('good'),
    ]);
    expect(result.stderr).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\/\n/);
    expect(result.stderr).toMatch(/pass {6}checkout\.return-url\.length/);
    expect(result.stderr).toMatch(/skip {6}checkout\.xml\.casing +must +XML not selected \(--format\)/);
    expect(result.stderr).toContain('proxy summary: 3 exchanges, 3 answered by the target');
    expect(result.stdout).toBe('');
    expect(result.code).toBe(0);
    expect(readFileSync(summary, 'utf8')).toMatch(/^### print-conformance proxy: ✅ /);
  });

  it('exits 1 when the command passes but its client broke a must rule', async () => {
    const summary = join(folder, 'bad.md');
    const long = `https://shop.example.test/${'a'.repeat(487)}`;
    expect(long).toHaveLength(513);
    const result = await runCli([
      'proxy',
      '--target',
      service.baseUrl,
      ...NARROW,
      '--summary-md',
      summary,
      '--json-report',
      join(folder, 'bad.json'),
      '--',
      process.execPath,
      client('bad', {
        after: `await (await fetch(url, { method: 'POST', headers: json, body: ${JSON.stringify(JSON.stringify({ ...JSON.parse(checkoutRequestJson()), returnUrl: long }))} })).text();`,
      }),
    ]);
    expect(result.stderr).toMatch(/FAIL {6}checkout\.return-url\.length +must/);
    expect(result.code).toBe(1);
    // Every report states the command's code, the proxy's verdict and the final code, also when
    // the final code is the verdict's own.
    const json = JSON.parse(readFileSync(join(folder, 'bad.json'), 'utf8'));
    expect(json.command).toMatchObject({ exitCode: 0, verdict: 1 });
    expect(json.exitCode).toBe(1);
    expect(readFileSync(summary, 'utf8')).toMatch(
      /\| `checkout\.return-url\.length` \| must \| ❌ failed \| \[json\] request: /,
    );
  });

  it("exits with the command's own code when it fails, and every report says so beside the proxy's verdict", async () => {
    const summary = join(folder, 'failing.md');
    const results = join(folder, 'failing.json');
    const result = await runCli([
      'proxy',
      '--target',
      service.baseUrl,
      '--summary-md',
      summary,
      '--json-report',
      results,
      '--',
      process.execPath,
      client('failing', { after: 'process.exit(3);' }),
    ]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('proxy summary: 3 exchanges, 3 answered by the target');
    expect(result.stderr).toMatch(
      /Command \S+ \S+failing\.mjs exited 3; the proxy's verdict: held \(0\); the session exits 3/,
    );
    // A failed command never shows a green summary, though the rules held.
    const markdown = readFileSync(summary, 'utf8');
    expect(markdown).toMatch(/^### print-conformance proxy: ❌ the command exited 3 \(rules: every selected rule/);
    expect(markdown).not.toContain('✅');
    expect(markdown).toContain('exit code 3');
    const json = JSON.parse(readFileSync(results, 'utf8'));
    expect(json.command).toMatchObject({ exitCode: 3, verdict: 0 });
    expect(json.exitCode).toBe(3);
    expect(json.summary.failed).toBe(0);
  });

  it('says the run could not be made, not that it held, when the failing command sent nothing', async () => {
    const summary = join(folder, 'nothing.md');
    const result = await runCli([
      'proxy',
      '--target',
      service.baseUrl,
      '--summary-md',
      summary,
      '--',
      process.execPath,
      '-e',
      'process.exit(3)',
    ]);
    expect(result.code).toBe(3);
    const said = /the proxy's verdict: the run could not be made or is incomplete \(2\); the session exits 3/;
    expect(result.stderr).toMatch(said);
    expect(result.stderr).not.toMatch(/verdict: held/);
    expect(readFileSync(summary, 'utf8')).toMatch(said);
  });

  it('hands the command its arguments as given, without a shell', async () => {
    const script = join(folder, 'args.mjs');
    writeFileSync(script, 'console.log(JSON.stringify(process.argv.slice(2)));');
    const args = ['a b', '0x10', '$HOME', '*', '--only', '-- x'];
    const result = await runCli(['proxy', '--target', service.baseUrl, '--', process.execPath, script, ...args]);
    expect(JSON.parse(result.stdout)).toEqual(args);
    // It made no request: the proxy saw nothing of the service.
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no request came through the proxy at http:\S+; point the client at it/);
  });

  it('passes SIGTERM on to the command, waits for it, then stops and prints its summary', async () => {
    const script = client('waiting', {
      after: `process.on('SIGTERM', () => { console.log('client got SIGTERM'); process.exit(0); });
console.log('ready');
setInterval(() => {}, 1000);`,
    });
    const child = spawn(
      process.execPath,
      [BIN, 'proxy', '--target', service.baseUrl, ...NARROW, '--', process.execPath, script],
      // The session's reports go to its working folder's reports/: a temporary one.
      { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    while (!stdout.includes('ready\n')) await once(child.stdout, 'data');
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(stdout).toBe('ready\nclient got SIGTERM\n');
    expect(stderr).toContain('proxy summary: 3 exchanges, 3 answered by the target');
    expect(code).toBe(0);
  });

  it.skipIf(!existsSync('/proc/self/stat'))(
    'passes SIGTERM on to what the command started, so none of it outlives the proxy',
    async () => {
      const pidFile = join(folder, 'sleep.pid');
      // A shell waiting on a child of its own: signalled alone, the shell dies and the sleep lives on.
      const shell = `sleep 30 & echo $! > ${pidFile}; echo ready; wait`;
      const child = spawn(process.execPath, [BIN, 'proxy', '--target', service.baseUrl, '--', 'sh', '-c', shell], {
        cwd: folder,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      while (!stdout.includes('ready\n')) await once(child.stdout, 'data');
      const sleeper = Number(readFileSync(pidFile, 'utf8').trim());
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      // Gone, or a zombie its new parent has yet to reap: either way no longer running. The signal
      // reached the group when the proxy sent it; a loaded machine may take a moment to end it.
      const stateOf = () =>
        existsSync(`/proc/${sleeper}/stat`)
          ? readFileSync(`/proc/${sleeper}/stat`, 'utf8').split(') ')[1]?.[0]
          : 'gone';
      let state = stateOf();
      for (let tries = 0; tries < 100 && state !== 'gone' && state !== 'Z'; tries += 1) {
        await new Promise((settle) => setTimeout(settle, 20));
        state = stateOf();
      }
      if (state !== 'gone' && state !== 'Z') process.kill(sleeper, 'SIGKILL');
      expect(['gone', 'Z']).toContain(state);
    },
  );

  it('exits 2 in one line, without running the command, when the proxy cannot start', async () => {
    const marker = join(folder, 'ran');
    const port = new URL(service.baseUrl).port;
    const result = await runCli([
      'proxy',
      '--target',
      service.baseUrl,
      '--port',
      port,
      '--',
      process.execPath,
      '-e',
      `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '')`,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`print-conformance: port ${port} on 127.0.0.1 is in use; choose another with --port\n`);
    expect(existsSync(marker)).toBe(false);
  });

  it('exits 2 in one line when the command cannot be started, or none is given', async () => {
    const missing = await runCli(['proxy', '--target', service.baseUrl, '--', 'no-such-command-here', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /\nprint-conformance: cannot start no-such-command-here: not found; give -- a program on PATH or a path to one\n$/,
    );
    const none = await runCli(['proxy', '--target', service.baseUrl, '--']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('print-conformance: -- needs a command to run behind the proxy, e.g. -- npm test\n');
  });
});
