import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { RecordingJudge } from '../../src/recording/recording-judge.js';
import { proxiedService } from '../helpers/proxy-fixture.js';
import { throughProxyTo } from '../helpers/raw-http.js';

// The suite marks the requests it sends in order to be refused. Behind the proxy (the README's
// example), and in its recording validated later, the service's answers to them are judged, but
// what the suite sent on purpose is never held against it as a client.

const MARK = { 'print-conformance-probe': 'refusal' };

async function shortReturnUrl(proxyUrl: string, marked: boolean): Promise<number> {
  const order = (await (await fetch(`${proxyUrl}orders`, { method: 'POST' })).json()) as {
    checkout: { setupUrl: string };
  };
  const answer = await fetch(order.checkout.setupUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(marked ? MARK : {}) },
    body: JSON.stringify({ returnUrl: 'a://' }),
  });
  await answer.arrayBuffer();
  return answer.status;
}

describe("the suite's own refusals behind the proxy", () => {
  it('are judged by their answers only, recorded with their mark', async () => {
    const fixture = await proxiedService();
    try {
      expect(await shortReturnUrl(fixture.proxy.url, true)).toBe(400);
      expect(await shortReturnUrl(fixture.proxy.url, false)).toBe(400);
      const [, marked, , unmarked] = await fixture.recorded();
      expect(marked?.request.headers['print-conformance-probe']).toBe('refusal');
      expect(marked?.violations.filter((v) => v.side === 'request')).toEqual([]);
      // The same request unmarked is a client's fault, as before.
      expect(unmarked?.violations.map((v) => v.rule)).toContain('checkout.return-url.length');
      // validate reads the recording the same way.
      const judge = new RecordingJudge();
      const lines = readFileSync(fixture.recordFile, 'utf8').trim().split('\n');
      for (const [index, line] of lines.entries()) judge.judgeLine(line, { file: 0, line: index + 1 });
      const { findings } = judge.finish().tally;
      // One finding, of the unmarked request: line 4 of the recording.
      expect(findings.map((f) => `${f.rule} ${f.side} line ${f.at?.line}`)).toEqual([
        'checkout.return-url.length request line 4',
      ]);
    } finally {
      await fixture.dispose();
    }
  });

  it('is not passed on to the service', async () => {
    let seen: IncomingHttpHeaders | undefined;
    const target = createServer((request, response) => {
      seen = request.headers;
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no"}');
    });
    await throughProxyTo(target, async (proxy) => {
      await (await fetch(`${proxy.url}checkout/x`, { headers: MARK })).arrayBuffer();
    });
    expect(seen?.['print-conformance-probe']).toBeUndefined();
  });
});
