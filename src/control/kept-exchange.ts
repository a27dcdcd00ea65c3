import type { Violation } from '../findings/types.js';
import type { Exchange, RecordedBody } from '../validate/exchange.js';

// What the live window keeps of an exchange outlives it, and is read far more seldom than it is
// kept: a few times, when a person opens the page, against thousands of exchanges a second. So it
// keeps each exchange as the JSON line the recording holds (or one made alike), in bytes outside
// the heap (line-store.ts), and builds the exchange again when it is read. Holding the objects of a
// thousand exchanges cost the proxy about a sixth of its CPU per request in young-generation
// collections alone; and the bytes of a line hold nothing of a body but what the line says.

/** Text shown of a body, per side: more is cut, and the page says so. */
export const SHOWN_BODY_CHARS = 64 * 1024;
/** Bytes of a body kept whole (--record-bodies) held for the page's curl line; larger ones go. */
export const KEPT_BINARY_CHARS = 1024 * 1024;
/** What a body kept whole by the recording but too large for the window says of itself. */
export const KEPT_IN_RECORDING = 'kept whole in the recording (--record-bodies), too large for the live page';

const NOT_KEPT = 'not kept for the page: the memory budget (--memory-budget) is spent';

/** An exchange with the findings a recording keeps with it: observations apart, or among the violations. */
export type WithFindings<E> = E & { violations?: Violation[]; observations?: Violation[] };

/** Every finding of an exchange, the violations first. */
export function findingsOf(exchange: WithFindings<Exchange>): Violation[] {
  const { violations = [], observations } = exchange;
  return observations?.length ? [...violations, ...observations] : violations;
}

/** A body without its text, for a window whose budget is spent. */
function withoutText(body: RecordedBody | undefined): RecordedBody | undefined {
  if (!body) return undefined;
  const { text: _text, base64: _base64, headBase64: _head, parts: _parts, ...rest } = body;
  return { ...rest, skipped: NOT_KEPT };
}

/**
 * A body as the page shows it: a text longer than a page shows is cut. Bytes kept whole stay for
 * the curl line that sends them again, as long as they are few.
 */
function cutBody(body: RecordedBody | undefined): RecordedBody | undefined {
  if (!body) return undefined;
  // Most bodies are shown as they are.
  if (!cutOnPage(body)) return body;
  const { base64, ...rest } = body;
  // Larger bytes are in the recording (--record-bodies), not in the window: the page says where.
  if (base64 !== undefined && base64.length > KEPT_BINARY_CHARS)
    return { ...rest, skipped: [rest.skipped, KEPT_IN_RECORDING].filter(Boolean).join('; ') };
  if (rest.text !== undefined && rest.text.length > SHOWN_BODY_CHARS)
    return {
      ...rest,
      ...(base64 === undefined ? {} : { base64 }),
      text: rest.text.slice(0, SHOWN_BODY_CHARS),
      skipped: `cut at ${SHOWN_BODY_CHARS} characters here`,
    };
  return body;
}

/** The exchange with its bodies as the page shows them (cut), or without their text. */
export function shownExchange<E extends Exchange>(exchange: E, bodies: 'cut' | 'none' = 'cut'): E {
  const shown = bodies === 'cut' ? cutBody : withoutText;
  return {
    ...exchange,
    request: { ...exchange.request, body: shown(exchange.request.body) },
    ...(exchange.response ? { response: { ...exchange.response, body: shown(exchange.response.body) } } : {}),
  };
}

/**
 * The line the window holds for an exchange: the recording's own when it is short (what a page
 * shows of it is all of it), else one made of the exchange as the page shows it.
 */
export function keptLine(exchange: Exchange, recorded: string | undefined): string {
  if (recorded !== undefined && recorded.length <= SHOWN_BODY_CHARS) return recorded;
  return JSON.stringify(
    cutOnPage(exchange.request.body) || cutOnPage(exchange.response?.body) ? shownExchange(exchange) : exchange,
  );
}

/** Whether the page shows less of a body than the recording holds. */
function cutOnPage(body: RecordedBody | undefined): boolean {
  return (body?.base64?.length ?? 0) > KEPT_BINARY_CHARS || (body?.text?.length ?? 0) > SHOWN_BODY_CHARS;
}

/** The line of an exchange without its bodies' text: what the window keeps once the budget is spent. */
export function bodilessLine(exchange: Exchange): string {
  return JSON.stringify(shownExchange(exchange, 'none'));
}

/** What the window's record of a line weighs, beside the line's bytes. */
export const RECORD_WEIGHT = 160;
