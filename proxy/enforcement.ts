import type { Headers, RecordedBody, Violation } from '../src/validate/exchange.js';
import { BodyTap, type TapOptions } from './body-tap.js';
import { describeViolations, VIOLATIONS_HEADER } from './proxy-context.js';

// Enforce mode: a request that breaks a must rule on its own side is answered by the proxy and
// never reaches the target. Which violations block, and the answer the client gets instead.

export interface BlockingAnswer {
  status: number;
  headers: Headers;
  body: string;
  violations: Violation[];
}

/** The proxy's own answer to a request with these violations, or undefined when it goes on. */
export function blockingAnswer(violations: Violation[]): BlockingAnswer | undefined {
  const blocking = violations.filter((v) => v.side === 'request' && v.severity === 'must');
  if (blocking.length === 0) return undefined;
  const rules = [...new Set(blocking.map((v) => v.rule))];
  const body = JSON.stringify({
    message: `print-conformance blocked this request: it breaks ${rules.join(', ')}`,
    violations: blocking,
  });
  // Only a wrong upload type is "unsupported media"; anything else is a bad request.
  const status = rules.every((r) => r === 'upload.content-type') ? 415 : 400;
  const headers: Headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    [VIOLATIONS_HEADER]: describeViolations(blocking),
  };
  return { status, headers, body, violations: blocking };
}

/**
 * The body a request is judged by before it is forwarded when only its start is held (multipart:
 * its first part headers): what has come of it, read by a tap of its own.
 */
export function previewBody(headers: Headers, held: Buffer[], tapOptions: TapOptions): RecordedBody {
  // Not against the budget: these very bytes are held (and charged) already.
  const preview = new BodyTap(headers, { ...tapOptions, budget: undefined });
  for (const chunk of held) preview.push(chunk);
  return preview.finish(headers['content-encoding']);
}
