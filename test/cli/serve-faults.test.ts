import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';

// `serve --fault` as a client team runs it, judged by the proxy and the suite as any service is: a
// fault that breaks a rule shows under that rule; a 401, which no rule forbids (it is how the real
// service answers an expired token), shows under the rules whose calls it refused.

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-faults-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** `serve --fault …` with the proxy in front of it; stops both and answers the proxy's verdict. */
async function behindProxy(faults: string[], proxyOptions: string[] = []) {
  const serve = await startListeningCli(['serve', '--fault', ...faults]);
  const proxy = await startListeningCli(['proxy', '--target', serve.url, ...proxyOptions]);
  return {
    url: proxy.url,
    async stop() {
      const verdict = await proxy.stop();
      expect((await serve.stop()).code).toBe(0);
      return verdict;
    },
  };
}

async function call(method: string, url: string, headers: Record<string, string> = {}, body?: string) {
  const answer = await fetch(url, { method, headers, body });
  return { status: answer.status, violations: answer.headers.get('print-conformance-violations'), answer };
}

async function setUpThrough(proxyUrl: string) {
  const order = (await (await fetch(`${proxyUrl}orders`, { method: 'POST' })).json()) as {
    checkout: { setupUrl: string };
  };
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  return {
    checkoutUrl: order.checkout.setupUrl,
    post: () => call('POST', order.checkout.setupUrl, headers, checkoutRequestJson()),
  };
}

describe('print-conformance serve --fault', () => {
  it('lists every fault in serve --help', async () => {
    const help = await runCli(['serve', '--help']);
    expect(help.code).toBe(0);
    for (const name of [
      'expire-tokens:N',
      '401:OPERATION[:COUNT]',
      '500:OPERATION',
      '503:OPERATION',
      'slow:OPERATION:MS',
      'payment-fails',
    ])
      expect(help.stdout).toContain(name);
  });

  it('refuses a fault it does not know in one line, exit 2', async () => {
    const result = await runCli(['serve', '--fault', 'teapot']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^print-conformance: --fault teapot is not a known fault; known: expire-tokens:N, [^\n]+\n$/,
    );
  });

  it('500 and 503 on an operation: the proxy flags each under http.no-server-error and exits 1', async () => {
    const setup = await behindProxy(['500:get-checkout', '503:post-checkout:1']);
    const { checkoutUrl, post } = await setUpThrough(setup.url);
    const unavailable = await post();
    // A sound JSON set-up answered 5xx: format.json-request says it was not taken, as for XML.
    expect([unavailable.status, unavailable.violations]).toEqual([
      503,
      'http.no-server-error (response), format.json-request (response)',
    ]);
    expect(unavailable.answer.headers.get('retry-after')).toBe('1');
    const retried = await post();
    expect([retried.status, retried.violations]).toEqual([201, null]);
    const broken = await call('GET', checkoutUrl, { accept: 'application/json' });
    expect([broken.status, broken.violations]).toEqual([500, 'http.no-server-error (response)']);
    const { code, stdout } = await setup.stop();
    expect(code).toBe(1);
    expect(stdout).toMatch(/\nFAIL +http\.no-server-error +must +\d+ exchanges/);
  });

  it('401 on an operation and expiring tokens: the proxy exits 1, the refused calls named in the untested rules', async () => {
    const setup = await behindProxy(['401:post-checkout:1']);
    const { post } = await setUpThrough(setup.url);
    expect((await post()).status).toBe(401);
    const { code, stdout } = await setup.stop();
    expect(code).toBe(1);
    expect(stdout).toMatch(/\nUNTESTED +checkout\.response\.schema +must .*POST checkout .*answered 401 JSON/);

    const expiring = await behindProxy(['expire-tokens:1']);
    const form = 'grant_type=client_credentials&client_id=shop&client_secret=s3cret';
    const issued = await call(
      'POST',
      `${expiring.url}oauth`,
      { 'content-type': 'application/x-www-form-urlencoded' },
      form,
    );
    const { access_token } = (await issued.answer.json()) as { access_token: string };
    const authorization = `Bearer ${access_token}`;
    const order = await fetch(`${expiring.url}orders`, { method: 'POST', headers: { authorization } });
    expect(order.status).toBe(201);
    const { checkout } = (await order.json()) as { checkout: { setupUrl: string } };
    const late = await call('GET', checkout.setupUrl, { authorization, accept: 'application/json' });
    expect(late.status).toBe(401);
    const verdict = await expiring.stop();
    expect(verdict.code).toBe(1);
    expect(verdict.stdout).toMatch(/\nUNTESTED +checkout\.get\.shape +must .*GET checkout .*answered 401 JSON/);
  });

  it('a slow answer: the proxy gives up after --connect-timeout (504) and counts it as never reaching the target', async () => {
    const setup = await behindProxy(['slow:get-checkout:60000'], ['--connect-timeout', '1']);
    const { checkoutUrl, post } = await setUpThrough(setup.url);
    expect((await post()).status).toBe(201);
    expect((await call('GET', checkoutUrl, { accept: 'application/json' })).status).toBe(504);
    const { stderr, stdout } = await setup.stop();
    expect(stderr).toMatch(/(^|\n)GET \/v2\/checkout\/\w+ → the target \S+ did not answer within 1 s\n/);
    expect(stdout).toMatch(/\nproxy summary: 3 exchanges, 2 answered by the target, 1 by the proxy itself\nreports: /);
  });
});

interface RuleResult {
  id: string;
  status: string;
  failures?: { message: string }[];
  reason?: string;
}

/** The suite run against `serve --fault …`: its exit code and each rule's result. */
async function suiteAgainst(faults: string[], runOptions: string[] = []) {
  const serve = await startListeningCli(['serve', '--fault', ...faults]);
  const reportDir = join(folder, faults.join('+').replace(/[^\w+-]/g, '_'));
  const run = await runCli(['run', '--base-url', serve.url, '--report-dir', reportDir, ...runOptions]);
  expect((await serve.stop()).code).toBe(0);
  const { rules } = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as { rules: RuleResult[] };
  const rule = (id: string) => rules.find((r) => r.id === id) as RuleResult;
  return { code: run.code, rule, failed: rules.filter((r) => r.status === 'failed').map((r) => r.id) };
}

describe('the suite against serve --fault', () => {
  it('500 on GET checkout: http.no-server-error and checkout.get.shape fail, exit 1', async () => {
    const { code, rule, failed } = await suiteAgainst(['500:get-checkout']);
    expect(code).toBe(1);
    expect(failed).toEqual(['checkout.get.shape', 'http.no-server-error']);
    expect(rule('http.no-server-error').failures?.[0]?.message).toMatch(/500/);
  });

  it('a GET checkout slower than --timeout: http.no-server-error fails with "no answer", exit 1', async () => {
    const { code, rule } = await suiteAgainst(['slow:get-checkout:60000'], ['--timeout', '0.3']);
    expect(code).toBe(1);
    expect(rule('http.no-server-error').status).toBe('failed');
    expect(rule('http.no-server-error').failures?.map((f) => f.message)).toContain(
      'no answer: no answer within 0.3 s (--timeout)',
    );
  });

  it('tokens that expire mid-run: the rules that needed the calls refused 401 go untested, not passed, exit 1', async () => {
    const { code, rule } = await suiteAgainst(
      ['expire-tokens:20'],
      ['--client-id', 'shop', '--client-secret', 's3cret'],
    );
    expect(code).toBe(1);
    // A 401 says nothing of what was sent: neither a refusal the probe wanted nor a breach.
    expect(rule('upload.raw')).toMatchObject({ status: 'untested' });
    expect(rule('upload.raw').reason).toMatch(/answered 401/);
  });
});
