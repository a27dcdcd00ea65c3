import { describe, expect, it } from 'vitest';
import { answerPlan, failureAnswer, mayResend } from '../../proxy/answer-checks.js';
import { blockingAnswer } from '../../proxy/enforcement.js';
import type { Violation } from '../../src/validate/exchange.js';

// The deciding half of the proxy's answers: blocking in enforce mode, how an answer is relayed,
// and what a failed one becomes. Pure functions, run without sockets.

const violation = (rule: string, side: 'request' | 'response', severity: 'must' | 'should'): Violation =>
  ({ rule, side, severity, message: `${rule} broken` }) as Violation;

describe('blocking in enforce mode', () => {
  it('lets a request through unless it breaks a must rule on its own side', () => {
    expect(blockingAnswer([])).toBeUndefined();
    expect(
      blockingAnswer([violation('a.b', 'request', 'should'), violation('c.d', 'response', 'must')]),
    ).toBeUndefined();
  });

  it('answers 415 for a wrong upload type alone, 400 otherwise, naming the rules in a header', () => {
    const upload = blockingAnswer([violation('upload.content-type', 'request', 'must')]);
    expect(upload?.status).toBe(415);
    const both = blockingAnswer([
      violation('upload.content-type', 'request', 'must'),
      violation('checkout.return-url.length', 'request', 'must'),
    ]);
    expect(both?.status).toBe(400);
    expect(both?.headers['print-conformance-violations']).toBe(
      'upload.content-type (request), checkout.return-url.length (request)',
    );
    expect(Number(both?.headers['content-length'])).toBe(Buffer.byteLength(both?.body ?? ''));
  });
});

describe('how an answer is relayed', () => {
  it('holds small JSON/XML answers, streams large or binary ones, and knows bodiless answers', () => {
    expect(answerPlan('GET', 200, { 'content-type': 'application/json', 'content-length': '10' }, 100).bufferable).toBe(
      true,
    );
    expect(
      answerPlan('GET', 200, { 'content-type': 'application/json', 'content-length': '101' }, 100).bufferable,
    ).toBe(false);
    expect(answerPlan('GET', 200, { 'content-type': 'application/pdf' }, 100).bufferable).toBe(false);
    expect(answerPlan('HEAD', 200, {}, 100).empty).toBe(true);
    expect(answerPlan('GET', 304, {}, 100).empty).toBe(true);
    expect(answerPlan('GET', 200, { 'content-encoding': 'gzip' }, 100).encoded).toBe(true);
  });
});

describe('what a failed answer becomes', () => {
  const context = {
    targetBase: 'http://t/',
    answerTimeoutMs: 10_000,
    targetTimeoutMs: 60_000,
    stopping: false,
    canResend: false,
  };

  it('504 for a target that does not answer, 502 for one that cannot be reached or speaks no HTTP', () => {
    expect(failureAnswer({ kind: 'timeout' }, context)).toMatchObject({ status: 504 });
    expect(failureAnswer({ kind: 'unreachable', code: 'ECONNREFUSED' }, context)).toMatchObject({ status: 502 });
    expect(failureAnswer({ kind: 'malformed', code: 'HPE_X' }, context)).toMatchObject({ status: 502 });
    expect(failureAnswer({ kind: 'broken', code: 'ECONNRESET' }, context)).toMatchObject({ broken: true });
    expect(failureAnswer({ kind: 'timeout' }, { ...context, stopping: true })).toMatchObject({ status: 503 });
    expect(failureAnswer({ kind: 'stalled' }, context)).toMatchObject({
      status: 504,
      message: 'the target http://t/ sent nothing more of its answer for 60 s',
    });
  });

  it('sends again only a bodiless idempotent request, once, after a kept connection closed under it', () => {
    const stale = { kind: 'stale', code: 'ECONNRESET' } as const;
    expect(failureAnswer(stale, { ...context, canResend: true })).toEqual({ resend: true });
    expect(failureAnswer(stale, context)).toMatchObject({ status: 502 });
    expect(mayResend('GET', { kind: 'none' }, false)).toBe(true);
    expect(mayResend('GET', { kind: 'length', length: 0 }, false)).toBe(true);
    expect(mayResend('GET', { kind: 'none' }, true)).toBe(false);
    expect(mayResend('POST', { kind: 'none' }, false)).toBe(false);
    expect(mayResend('PUT', { kind: 'length', length: 3 }, false)).toBe(false);
    expect(mayResend('DELETE', { kind: 'chunked' }, false)).toBe(false);
  });
});
