import { keptCopy, ownText, weightOf } from '../findings/kept-copy.js';
import type { Violation } from '../findings/types.js';
import type { Exchange, Headers, RecordedBody } from '../validate/exchange.js';

// What the live window keeps of an exchange outlives the exchange, so it must hold nothing of it
// but what it shows, and be weighed as kept. A string cut from a larger one is, in V8, a view that
// keeps the whole alive (see kept-copy.ts); but copying every string of every exchange doubled
// the proxy's cost per request. So only what can be such a view is copied: the cut of a long
// body, the findings (they quote values read from bodies), an error. The method, the URL and the
// headers are strings of their own, made by the HTTP parser from the bytes of one head; texts and
// base64 decoded from a body's bytes are too. Those are held as they are, and weighed.

/** Text shown of a body, per side: more is cut, and the page says so. */
export const SHOWN_BODY_CHARS = 64 * 1024;
/** Bytes of a body kept whole (--record-bodies) held for the page's curl line; larger ones go. */
export const KEPT_BINARY_CHARS = 1024 * 1024;
/** What a body kept whole by the recording but too large for the window says of itself. */
export const KEPT_IN_RECORDING = 'kept whole in the recording (--record-bodies), too large for the live page';
/** What a list's entry of an exchange weighs beyond what it shares with the exchange. */
export const ENTRY_WEIGHT = 512;

const NOT_KEPT = 'not kept for the page: the memory budget (--memory-budget) is spent';

/** An exchange with the findings a recording keeps with it. */
export type WithFindings<E> = E & { violations?: Violation[]; observations?: Violation[] };

/** A body without its text, for a window whose budget is spent. */
export function withoutText(body: RecordedBody | undefined): RecordedBody | undefined {
  if (!body) return undefined;
  const { text: _text, base64: _base64, headBase64: _head, parts: _parts, ...rest } = body;
  return { ...rest, skipped: NOT_KEPT };
}

/**
 * A body as the window holds it: a text longer than a page shows is cut, and the cut copied.
 * Parts are copied too (their heads are read out of the body). Bytes kept whole stay for the
 * curl line that sends them again, as long as they are few.
 */
function cutBody(body: RecordedBody | undefined): RecordedBody | undefined {
  if (!body) return undefined;
  // Most bodies are held as they are: no base64, no parts, a text a page shows whole.
  if (body.base64 === undefined && body.parts === undefined && (body.text?.length ?? 0) <= SHOWN_BODY_CHARS)
    return body;
  const { base64, ...rest } = body;
  if (rest.parts !== undefined) rest.parts = keptCopy(rest.parts).copy;
  if (base64 !== undefined && base64.length <= KEPT_BINARY_CHARS) return { ...rest, base64 };
  // Larger ones are in the recording (--record-bodies), not in the window: the page says where.
  if (base64 !== undefined) return { ...rest, skipped: [rest.skipped, KEPT_IN_RECORDING].filter(Boolean).join('; ') };
  if (rest.text !== undefined && rest.text.length > SHOWN_BODY_CHARS)
    return {
      ...rest,
      text: ownText(rest.text.slice(0, SHOWN_BODY_CHARS)),
      skipped: `cut at ${SHOWN_BODY_CHARS} characters here`,
    };
  return rest;
}

/** A finding of its own: its message and path may quote a value read from a body. */
function ownFinding(finding: Violation): Violation {
  const own: Violation = { ...finding, message: ownText(finding.message) };
  if (finding.path !== undefined) own.path = ownText(finding.path);
  return own;
}

function weighFinding(finding: Violation): number {
  return 160 + 2 * (finding.message.length + (finding.path?.length ?? 0));
}

function weighHeaders(headers: Headers): number {
  let weight = 64;
  for (const name in headers) weight += 48 + 2 * (name.length + (headers[name]?.length ?? 0));
  return weight;
}

function weighBody(body: RecordedBody | undefined): number {
  if (!body) return 0;
  let weight = 128 + 2 * ((body.text?.length ?? 0) + (body.base64?.length ?? 0) + (body.headBase64?.length ?? 0));
  weight += 2 * ((body.skipped?.length ?? 0) + (body.sha256?.length ?? 0) + (body.codingError?.length ?? 0));
  if (body.parts) weight += weightOf(body.parts);
  return weight;
}

/**
 * What the window keeps of an exchange (redacted as the recording holds it), and about what that
 * weighs in the heap: the parts that may be views of larger strings copied, the rest shared.
 */
export function keptExchange(exchange: WithFindings<Exchange>): {
  exchange: WithFindings<Exchange>;
  weight: number;
} {
  const kept: WithFindings<Exchange> = {
    ...exchange,
    request: { ...exchange.request, body: cutBody(exchange.request.body) },
    ...(exchange.response ? { response: { ...exchange.response, body: cutBody(exchange.response.body) } } : {}),
  };
  let weight = 512 + 2 * (exchange.request.url.length + exchange.request.method.length);
  weight += weighHeaders(kept.request.headers) + weighBody(kept.request.body);
  if (kept.response) weight += weighHeaders(kept.response.headers) + weighBody(kept.response.body);
  if (exchange.violations?.length) {
    kept.violations = exchange.violations.map(ownFinding);
    for (const finding of kept.violations) weight += weighFinding(finding);
  }
  if (exchange.observations?.length) {
    // Observations are among the violations the window is given: each is copied once.
    const { violations = [] } = exchange;
    kept.observations = exchange.observations.map((finding) => {
      const index = violations.indexOf(finding);
      if (index >= 0) return kept.violations?.[index] as Violation;
      const copy = ownFinding(finding);
      weight += weighFinding(copy);
      return copy;
    });
  }
  if (exchange.error !== undefined) {
    kept.error = ownText(exchange.error);
    weight += 2 * kept.error.length;
  }
  return { exchange: kept, weight };
}
