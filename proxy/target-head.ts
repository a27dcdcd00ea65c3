import { TEST_HEADER } from '../src/control/control-plane.js';
import { PROBE_HEADER } from '../src/validate/probe-refusal.js';
import type { Flight } from './flight.js';
import { forwardedFields } from './message-head.js';

// The head of a request as it goes to the target: the client's fields, less those the proxy
// writes itself or keeps to itself.

// The proxy frames every body it forwards itself: Content-Length is written with its own digits.
// The test's name and the suite's mark on its refusals are the proxy's to read (kept in the recording).
const NOT_FORWARDED_TO_TARGET = new Set(['host', 'content-length', TEST_HEADER, PROBE_HEADER]);
const NOT_FORWARDED_WITH_EXPECT = new Set(['host', 'content-length', 'expect', TEST_HEADER, PROBE_HEADER]);

export function targetHead(flight: Flight, targetHost: string): { text: string; bodyFollows: boolean } {
  const head = flight.head;
  let text = `${head.method} ${flight.path} HTTP/1.1\r\nhost: ${targetHost}\r\n`;
  text += forwardedFields(head.rawHeaders, flight.continued ? NOT_FORWARDED_WITH_EXPECT : NOT_FORWARDED_TO_TARGET);
  // Framed as the parser read the request, never as its header text says (http-parser.ts).
  const { framing } = head;
  if (framing.kind === 'chunked') text += 'transfer-encoding: chunked\r\n';
  else if (framing.kind === 'length') text += `content-length: ${framing.length}\r\n`;
  const bodyFollows = framing.kind === 'chunked' || (framing.kind === 'length' && framing.length > 0);
  return { text: `${text}\r\n`, bodyFollows };
}
