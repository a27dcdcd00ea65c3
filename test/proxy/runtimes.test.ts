import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientTestVerdict } from '../../src/findings/types.js';
import { ROOT } from '../helpers/cli.js';
import { HAS_PHP_CURL, onPath, PYTHON } from '../helpers/peers.js';
import { CLIENTS, type Session, type StandIn, startStandIn, TARGET } from '../helpers/stand-in-service.js';

// Each runtime Debian ships, its client unmodified behind `proxy -- COMMAND` as docs/interception.md
// says, in front of the stand-in for the real host. One proxy session a runtime: the good client,
// then its faulty twin (the checkout URL built by hand), each named as a client test through the
// control API, so that one session shows both: the good one judged whole and clean, the twin
// caught by client.given-urls. (.ci/run installs these runtimes when missing.)

function hasPython(module: string): boolean {
  try {
    execFileSync(PYTHON, ['-c', `import ${module}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const HAS_HTTPX = hasPython('httpx');
const HAS_GUZZLE =
  HAS_PHP_CURL &&
  onPath('php') &&
  (() => {
    try {
      execFileSync('php', ['-r', 'exit(is_file("/usr/share/php/GuzzleHttp/autoload.php") ? 0 : 1);'], {
        stdio: 'ignore',
      });
      return true;
    } catch {
      return false;
    }
  })();

let standIn: StandIn;
beforeAll(async () => {
  standIn = await startStandIn();
});
afterAll(async () => {
  await standIn?.close();
});

/** The good client, then its twin, each as a client test of that name, in one session. */
function goodThenTwin(client: string): string[] {
  const mark = (name: string) =>
    `curl -s -o /dev/null -X POST -H 'content-type: application/json' "\${PRINT_CONFORMANCE_PROXY_URL}__print-conformance/api/tests" -d '{"name": ${name}}'`;
  return [
    'sh',
    '-c',
    `${mark('"good"')}; ${client} good; echo "good exit: $?"; ${mark('"twin"')}; ${client} built-urls; ${mark('null')}; true`,
  ];
}

function testNamed(session: Session, name: string): ClientTestVerdict {
  const found = session.results.clientTests?.find((test) => test.name === name);
  if (!found) throw new Error(`no client test ${name}: ${session.stderr}`);
  return found;
}

/** Every exchange went to the service and was judged; the good client's clean, its twin's caught. */
function expectJudged(session: Session, good: string, twin: string, interfaceCalls = 3): void {
  expect(session.recording.length, session.stderr).toBeGreaterThan(0);
  expect(session.recording.every((exchange) => exchange.request.url.startsWith(TARGET))).toBe(true);
  expect(session.recording.every((exchange) => exchange.error === undefined && exchange.response)).toBe(true);
  const clean = testNamed(session, good);
  expect(clean.judged, session.stderr).toBe(interfaceCalls);
  expect({ failed: clean.failed, warnings: clean.warnings }).toEqual({ failed: [], warnings: [] });
  const caught = testNamed(session, twin);
  expect(caught.passed).toBe(false);
  expect(caught.failed.map((failure) => failure.rule)).toContain('client.given-urls');
  // The twin breaks nothing else: no body of either was failed.
  expect(caught.failed.map((failure) => failure.rule)).toEqual(['client.given-urls']);
}

function expectGoodRun(session: Session): void {
  expect(session.stdout, session.stderr).toMatch(/checkout set-up: 201\ncheckout: 200\nupload: 200\ngood exit: 0/);
  expectJudged(session, 'good', 'twin');
  // The twin's finding makes the session's verdict 1; nothing else fails it.
  expect(session.code, session.stderr).toBe(1);
}

describe.skipIf(!onPath('javac') || !onPath('curl'))('Java 17+', () => {
  let classes: string;
  beforeAll(() => {
    classes = join(standIn.folder, 'java');
    mkdirSync(classes);
    execFileSync('javac', ['-d', classes, join(CLIENTS, 'Shop.java')], { stdio: 'ignore' });
  }, 120_000);

  it('HttpClient.newHttpClient() goes through, judged; its twin is caught', async () => {
    expectGoodRun(await standIn.behindProxy(goodThenTwin(`java -cp ${classes} Shop httpclient`), 'java-client'));
  });

  it('HttpURLConnection goes through, judged; its twin is caught', async () => {
    expectGoodRun(await standIn.behindProxy(goodThenTwin(`java -cp ${classes} Shop urlconnection`), 'java-url'));
  });
});

describe.skipIf(!onPath('go') || !onPath('curl'))("Go's net/http", () => {
  let binary: string;
  beforeAll(() => {
    binary = join(standIn.folder, 'shop-go');
    const cache = join(standIn.folder, 'go');
    execFileSync('go', ['build', '-o', binary, join(CLIENTS, 'shop.go')], {
      stdio: 'ignore',
      env: { ...process.env, GOCACHE: join(cache, 'cache'), GOPATH: cache, GOFLAGS: '-mod=mod', GO111MODULE: 'off' },
    });
  }, 180_000);

  it('goes through, judged; its twin is caught', async () => {
    expectGoodRun(await standIn.behindProxy(goodThenTwin(binary), 'go'));
  });
});

describe.skipIf(!onPath('ruby') || !onPath('curl'))("Ruby's Net::HTTP", () => {
  it('goes through, judged; its twin is caught', async () => {
    expectGoodRun(await standIn.behindProxy(goodThenTwin(`ruby ${join(CLIENTS, 'shop.rb')}`), 'ruby'));
  });
});

describe.skipIf(!HAS_HTTPX || !onPath('curl'))('Python httpx', () => {
  it('goes through, judged; its twin is caught', async () => {
    expectGoodRun(await standIn.behindProxy(goodThenTwin(`${PYTHON} ${join(CLIENTS, 'shop-httpx.py')}`), 'httpx'));
  });
});

describe.skipIf(!HAS_GUZZLE || !onPath('curl'))('Guzzle 7', () => {
  it('goes through, judged; its twin is caught', async () => {
    expectGoodRun(await standIn.behindProxy(goodThenTwin(`php ${join(CLIENTS, 'shop-guzzle.php')}`), 'guzzle'));
  });
});

describe.skipIf(!onPath('phpunit') || !HAS_PHP_CURL)("PHPUnit, with docs/client-tests.md's recipe", () => {
  it('runs the recipe as the docs write it', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'client-tests.md'), 'utf8');
    const recipe = /### PHPUnit[\s\S]*?```php\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(recipe).toMatch(/^abstract class ConformanceTestCase/);
    expect(readFileSync(join(CLIENTS, 'phpunit', 'ConformanceTestCase.php'), 'utf8')).toContain(recipe);
  });

  it('keys each test by class and method, passes the good one and fails its twin on client.given-urls', async () => {
    const session = await standIn.behindProxy(
      ['phpunit', '--do-not-cache-result', join(CLIENTS, 'phpunit')],
      'phpunit',
    );
    expectJudged(session, 'ShopTest::testCheckout', 'BuiltUrlsTest::testCheckout', 1);
    // PHPUnit fails the twin through the recipe's assertion, and its exit code is the session's.
    expect(session.stdout).toMatch(/1\) BuiltUrlsTest::testCheckout\n[\s\S]*'client\.given-urls: request: /);
    expect(session.stdout).toMatch(/Tests: 2, Assertions: \d+, Failures: 1\./);
    expect(session.code).toBe(1);
  });

  it('with --control-token, takes the token from the proxy and judges as without it', async () => {
    const session = await standIn.behindProxy(
      ['phpunit', '--do-not-cache-result', join(CLIENTS, 'phpunit')],
      'phpunit-token',
      {},
      ['--control-token', 'phpunit-control-token'],
    );
    expectJudged(session, 'ShopTest::testCheckout', 'BuiltUrlsTest::testCheckout', 1);
    expect(session.stdout).toMatch(/1\) BuiltUrlsTest::testCheckout\n[\s\S]*'client\.given-urls: request: /);
    expect(session.code).toBe(1);
  });

  it('fails a test whose control call is refused, rather than read it as nothing broken', async () => {
    // A token the proxy does not hold: every control call of the recipe is refused.
    const phpunit = `phpunit --do-not-cache-result ${join(CLIENTS, 'phpunit', 'ShopTest.php')}`;
    const session = await standIn.behindProxy(
      ['sh', '-c', `PRINT_CONFORMANCE_CONTROL_TOKEN=not-the-token ${phpunit}`],
      'phpunit-refused',
      {},
      ['--control-token', 'phpunit-control-token'],
    );
    expect(session.stdout).toMatch(/print-conformance control API: POST tests answered 401/);
    expect(session.code).not.toBe(0);
  });
});
