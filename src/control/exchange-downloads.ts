// What the control API hands over as a file rather than shows: the window's exchanges as HAR, and a
// request body kept whole. Apart from control-plane.ts, which routes requests, since these are
// formats of their own (HAR 1.2, raw bytes) with their own headers.
import { TOOL_NAME, TOOL_VERSION } from '../contract/package-root.js';
import { harEntry } from '../http/har-entry.js';
import { type Answer, problem } from './control-answers.js';
import type { ExchangeFeed } from './exchange-feed.js';

/** The body exchange `seq` sent, as bytes to save, when the window holds it whole. */
export function requestBodyDownload(feed: ExchangeFeed, seq: string): Answer {
  const body = feed.item(Number(seq))?.exchange.request.body;
  const bytes =
    body?.base64 !== undefined
      ? Buffer.from(body.base64, 'base64')
      : body?.text !== undefined && !body.skipped
        ? Buffer.from(body.text, 'utf8')
        : undefined;
  if (!bytes) return problem(404, `the body of exchange ${seq} is not held whole (proxy --record-bodies keeps it)`);
  return {
    status: 200,
    headers: {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="request-${seq}.bin"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    body: bytes,
  };
}

/** The window's exchanges as HAR 1.2, bodies as the window holds them (redacted). */
export function harDownload(feed: ExchangeFeed, targetBase: string | undefined): Answer {
  const entries = feed
    .heldItems()
    .filter((item) => !item.entry.refusedHandshake)
    .map((item) => harEntry({ ...item.exchange, violations: item.entry.violations }));
  const log = {
    log: {
      version: '1.2',
      creator: { name: TOOL_NAME, version: TOOL_VERSION },
      ...(targetBase ? { _target: targetBase } : {}),
      entries,
    },
  };
  return {
    status: 200,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': 'attachment; filename="print-conformance.har"',
      'cache-control': 'no-store',
    },
    body: `${JSON.stringify(log)}
`,
  };
}
