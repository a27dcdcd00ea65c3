import { describe, expect, it } from 'vitest';
import { ClientIdentity, TOKENS_KEPT } from '../../src/control/client-identity.js';
import { clientLabels, LABELLED_CLIENTS } from '../../src/control/client-labels.js';
import { RecordingJudge } from '../../src/recording/recording-judge.js';
import { ClientTally, clientVerdicts, mergeClientTallies } from '../../src/validate/client-tally.js';
import type { Exchange } from '../../src/validate/exchange.js';

// Which client team an exchange belongs to: a token the proxy saw handed out names its client, any
// other names no one; Basic users and headers name theirs. Nothing kept holds a token.

function tokenCall(body: string, token: string, headers: Record<string, string> = {}): Exchange & { client?: string } {
  return {
    request: {
      method: 'POST',
      url: 'http://proxy.test/v2/oauth',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: { size: body.length, text: body },
    },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { size: 0, text: JSON.stringify({ access_token: token, token_type: 'bearer', expires_in: 14399 }) },
    },
  } as Exchange;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('ClientIdentity by oauth', () => {
  it('maps a token it saw handed out to the client_id that asked for it, and any other token to unknown', () => {
    const identity = new ClientIdentity({ kind: 'oauth' });
    const call = tokenCall('grant_type=client_credentials&client_id=shop-a&client_secret=s3cret', 'tok-a');
    identity.learn(call);
    expect(call.client).toBe('shop-a');
    expect(identity.of(bearer('tok-a'))).toBe('shop-a');
    expect(identity.of(bearer('tok-other'))).toBe('unknown');
    expect(identity.of({})).toBe('unknown');
  });

  it('takes the client_id from the token call’s Basic credentials', () => {
    const identity = new ClientIdentity({ kind: 'oauth' });
    const basic = `Basic ${Buffer.from('shop-b:pw').toString('base64')}`;
    identity.learn(tokenCall('grant_type=client_credentials', 'tok-b', { authorization: basic }));
    expect(identity.of(bearer('tok-b'))).toBe('shop-b');
  });

  it('holds digests of tokens, never a token itself', () => {
    const identity = new ClientIdentity({ kind: 'oauth' });
    identity.learn(tokenCall('client_id=shop-a&client_secret=s', 'tok-secret-value'));
    const held = JSON.stringify([...(identity as unknown as { tokens: Map<string, unknown> }).tokens.keys()]);
    expect(held).not.toContain('tok-secret-value');
  });

  it('forgets the least recently used token past its bound', () => {
    const identity = new ClientIdentity({ kind: 'oauth' });
    identity.learn(tokenCall('client_id=first', 'tok-0'));
    for (let n = 1; n < TOKENS_KEPT; n += 1) identity.learn(tokenCall('client_id=many', `tok-${n}`));
    // Used again: kept; the next oldest goes instead.
    expect(identity.of(bearer('tok-0'))).toBe('first');
    identity.learn(tokenCall('client_id=late', 'tok-late'));
    expect(identity.of(bearer('tok-0'))).toBe('first');
    expect(identity.of(bearer('tok-1'))).toBe('unknown');
    expect(identity.of(bearer('tok-late'))).toBe('late');
  });

  it('names no one with a token past its expiry, nor with one a failed token call carried', () => {
    const identity = new ClientIdentity({ kind: 'oauth' });
    const call = tokenCall('client_id=shop-a', 'tok-brief');
    (call.response as { body: { text: string } }).body.text = JSON.stringify({
      access_token: 'tok-brief',
      expires_in: 0.001,
    });
    identity.learn(call);
    const refused = tokenCall('client_id=shop-b', 'tok-refused');
    (refused.response as { status: number }).status = 401;
    identity.learn(refused);
    const until = performance.now() + 5;
    while (performance.now() < until);
    expect(identity.of(bearer('tok-brief'))).toBe('unknown');
    expect(identity.of(bearer('tok-refused'))).toBe('unknown');
  });
});

describe('ClientIdentity by basic and header', () => {
  it('names the Basic user, never the password', () => {
    const identity = new ClientIdentity({ kind: 'basic' });
    expect(identity.of({ authorization: `Basic ${Buffer.from('team-x:hunter2').toString('base64')}` })).toBe('team-x');
    expect(identity.of({ authorization: 'Bearer abc' })).toBe('unknown');
  });

  it('names the header’s value, removing a print-conformance- header before forwarding and leaving others', () => {
    const own = new ClientIdentity({ kind: 'header', name: 'print-conformance-client' });
    const headers: Record<string, string> = { 'print-conformance-client': ' team-y ' };
    expect(own.of(headers)).toBe('team-y');
    expect(headers).toEqual({});
    const theirs = new ClientIdentity({ kind: 'header', name: 'x-shop' });
    const kept: Record<string, string> = { 'x-shop': 'team-z' };
    expect(theirs.of(kept)).toBe('team-z');
    expect(kept).toEqual({ 'x-shop': 'team-z' });
    expect(theirs.of({})).toBe('unknown');
  });

  it('shows an id through the session’s masking, on one line and cut to length', () => {
    const identity = new ClientIdentity({ kind: 'header', name: 'x-shop' }, (text) =>
      text.replace('hidden', '[redacted]'),
    );
    expect(identity.of({ 'x-shop': 'a\u0007hidden' })).toBe('a [redacted]');
    expect(identity.of({ 'x-shop': 'x'.repeat(500) })).toHaveLength(200);
  });
});

describe('client labels and tallies', () => {
  it('labels the first clients by their id and every later one as other, for good', () => {
    const label = clientLabels();
    for (let n = 0; n < LABELLED_CLIENTS; n += 1) expect(label(`c${n}`)).toBe(`c${n}`);
    expect(label('late')).toBe('other');
    expect(label('c0')).toBe('c0');
    expect(label('late')).toBe('other');
  });

  it('merges tallies of disjoint traffic as if one had seen it all', () => {
    const a = new ClientTally();
    const b = new ClientTally();
    const broken = { rule: 'client.given-urls', severity: 'must', side: 'request', message: 'built' } as const;
    a.record('shop', true, [broken]);
    b.record('shop', true, [broken]);
    b.record('other-shop', true, []);
    const [shop, other] = clientVerdicts(mergeClientTallies([a.data, b.data]), false);
    expect(shop).toMatchObject({ client: 'shop', exchanges: 2, passed: false });
    expect(shop?.failed[0]).toMatchObject({ rule: 'client.given-urls', count: 2, messages: ['request: built'] });
    expect(other).toMatchObject({ client: 'other-shop', passed: true });
    expect(clientVerdicts(a.data, false, new Set(['checkout.x']))[0]?.passed).toBe(true);
  });

  it('reads a recorded client as untrusted: on one line, cut to a length fit to show', () => {
    const judge = new RecordingJudge('http://service.test/v2/');
    const line = (client: unknown) =>
      JSON.stringify({
        request: { method: 'GET', url: 'http://service.test/elsewhere', headers: {} },
        response: { status: 200, headers: {} },
        client,
      });
    judge.judgeLine(line(`team\u001b[31m${'x'.repeat(500)}`), { file: 0, line: 1 });
    judge.judgeLine(line({ not: 'a string' }), { file: 0, line: 2 });
    const [client, ...others] = [...judge.finish().clients.keys()];
    expect(others).toEqual([]);
    expect(client).toHaveLength(200);
    expect(client).toMatch(/^team \[31mx+$/);
  });
});
