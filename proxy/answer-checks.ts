import { isTextualMediaType } from '../src/validate/document.js';
import type { Headers } from '../src/validate/exchange.js';
import { isHttpStatus, mediaType } from '../src/validate/exchange.js';
import type { Framing } from './http-parser.js';
import type { UpstreamFailure } from './upstream-failure.js';

// Decisions about the target's answer, made from its head and the request's: how it is relayed,
// and what the client is told when it cannot be had.

export interface AnswerPlan {
  /** Answers to HEAD, 204 and 304: no body, and the head's Content-Length describes another. */
  empty: boolean;
  /** The Content-Length, or NaN without one. */
  declaredLength: number;
  /** Content-coded (gzip…): its URLs cannot be rewritten in place. */
  encoded: boolean;
  /** A JSON/XML/text answer small enough to be held whole, judged before its head goes out. */
  bufferable: boolean;
}

export function answerPlan(requestMethod: string, status: number, headers: Headers, validateLimit: number): AnswerPlan {
  const declaredLength = headers['content-length'] === undefined ? Number.NaN : Number(headers['content-length']);
  const encoding = headers['content-encoding'];
  return {
    empty: requestMethod === 'HEAD' || status === 204 || status === 304,
    declaredLength,
    encoded: Boolean(encoding && encoding !== 'identity'),
    bufferable:
      isTextualMediaType(mediaType(headers['content-type'])) &&
      (!Number.isFinite(declaredLength) || declaredLength <= validateLimit),
  };
}

/**
 * Why a target's status line cannot be passed on, or undefined when it can: a status outside
 * 100–599, or 101 Switching Protocols to a request that asked for no upgrade (the proxy forwards
 * none, so every 101 is unrequested). Other 1xx are interim answers, passed on before the final one.
 */
export function statusProblem(status: number, upgradeRequested: boolean): string | undefined {
  if (!isHttpStatus(status)) return `status ${String(status).padStart(3, '0')} is not an HTTP status (100–599)`;
  if (status === 101 && !upgradeRequested)
    return 'status 101 (Switching Protocols) to a request that asked for no upgrade';
  return undefined;
}

/** What the client gets when the target's answer cannot be had; `resend` when it is sent again instead. */
export type FailureAnswer = { resend: true } | { resend: false; status: number; message: string; broken?: boolean };

export function failureAnswer(
  failure: UpstreamFailure,
  context: {
    targetBase: string;
    answerTimeoutMs: number;
    targetTimeoutMs: number;
    stopping: boolean;
    canResend: boolean;
  },
): FailureAnswer {
  const { targetBase } = context;
  if (context.stopping)
    return { resend: false, status: 503, message: 'the proxy stopped before the exchange completed' };
  switch (failure.kind) {
    case 'timeout': {
      const within = `within ${context.answerTimeoutMs / 1000} s`;
      const what =
        failure.phase === 'connect'
          ? 'did not accept a connection'
          : failure.phase === 'handshake'
            ? 'did not complete its TLS handshake'
            : 'did not answer';
      return { resend: false, status: 504, message: `the target ${targetBase} ${what} ${within}` };
    }
    case 'stalled':
      // 504 while the client has had nothing of the answer; past its head the connection just closes.
      return {
        resend: false,
        status: 504,
        message: `the target ${targetBase} sent nothing more of its answer for ${context.targetTimeoutMs / 1000} s`,
      };
    case 'stale':
      if (context.canResend) return { resend: true };
      return {
        resend: false,
        status: 502,
        message: `the target ${targetBase} closed a kept-alive connection before answering (${failure.code}); a request with a body or of a method that is not idempotent is not sent twice`,
      };
    case 'unreachable': {
      // Where the connection went, when --connect-to sent it elsewhere: that is the address to check.
      const at = failure.at ? ` at ${failure.at} (--connect-to)` : '';
      const why =
        failure.code === 'EPROTO'
          ? `${failure.code}: it did not answer in TLS; is it serve without --tls?`
          : failure.code;
      return { resend: false, status: 502, message: `the target ${targetBase} cannot be reached${at} (${why})` };
    }
    case 'untrusted':
      return {
        resend: false,
        status: 502,
        message:
          failure.code === 'ERR_TLS_CERT_ALTNAME_INVALID'
            ? `the certificate the target presents is not for ${failure.host} (${failure.code}): it names other hosts (a serve --tls standing in for it needs --public-url https://${failure.host}/…)`
            : `the certificate of ${failure.host} does not verify (${failure.code}); if it is right, trust its CA with --target-ca FILE`,
      };
    case 'dropped':
      return {
        resend: false,
        status: 502,
        message: `the target ${targetBase} took the request and closed the connection without answering (${failure.code})`,
      };
    case 'malformed':
      return {
        resend: false,
        status: 502,
        message: `the target ${targetBase} sent no valid HTTP answer (${failure.code})`,
      };
    case 'invalid':
      return {
        resend: false,
        status: 502,
        message: `the target ${targetBase} sent an invalid answer: ${failure.reason}`,
      };
    case 'internal':
      return { resend: false, status: 502, message: `print-conformance proxy: ${failure.message}` };
    default:
      // Broken off: the client has had part of an answer, or waits on one that cannot come whole.
      return { resend: false, status: 502, message: 'the target broke off the answer', broken: true };
  }
}

/**
 * Whether a request may go out again after a kept connection closed under it (RFC 9110 §9.2.2):
 * once, for an idempotent method without a body, which the proxy can send again whole.
 */
export function mayResend(method: string, framing: Framing, alreadyResent: boolean): boolean {
  const idempotent = method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || method === 'DELETE';
  const bodiless = framing.kind === 'none' || (framing.kind === 'length' && framing.length === 0);
  return idempotent && bodiless && !alreadyResent;
}
