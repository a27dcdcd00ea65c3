import type { MessageHead } from './http-parser.js';

// Whether a target connection can carry another request after this one: not when the target may
// have left the body unread. A target that ignores the body of a GET or OPTIONS (0.CL, TE.0), or
// answers an Expect without reading on, takes the body's bytes for the next request on the
// connection, and its answer to them for the next client's answer. Such a connection is closed
// after the answer, as Next.js does since CVE-2026-29057 and nginx does for unread bodies.

/** Methods whose requests have no body by convention (RFC 9110 §9.3): a target may not read one. */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE', 'TRACE']);

/**
 * After the final answer: 'keep' the connection; 'close' it; or keep it only if the target said
 * 100 Continue first ('if-continued': a target that answers an Expect at once may leave the body).
 */
export type ReuseAfter = 'keep' | 'close' | 'if-continued';

export function reuseAfter(head: MessageHead, expectForwarded: boolean): ReuseAfter {
  const { framing } = head;
  const body = framing.kind === 'chunked' || (framing.kind === 'length' && framing.length > 0);
  if (!body) return 'keep';
  if (BODYLESS_METHODS.has(head.method)) return 'close';
  return expectForwarded ? 'if-continued' : 'keep';
}
