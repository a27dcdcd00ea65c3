import { type ExchangeFacts, type ExchangeKind, factsKey } from '../contract/exchange-facts.js';
import { RULES, type RuleId } from '../contract/rules.js';
import type { FormatKey, Side } from '../findings/types.js';
import { checkCheckout } from './checkout.js';
import { type Endpoint, type Exchange, endpointOf, type Violation } from './exchange.js';
import { checkFormat, type ReadBodies } from './format.js';
import { Judging } from './judging.js';
import { CheckoutState } from './state.js';
import { checkUpload } from './upload.js';

export type { Exchange, RecordedBody, RecordedRequest, RecordedResponse, Side, Violation } from './exchange.js';
export { CheckoutState } from './state.js';

/** A rule an exchange could have broken, on one side, in one format. */
export interface Tested {
  rule: RuleId;
  side: Side;
  format: FormatKey;
}

export interface Judgement {
  violations: Violation[];
  /** Every rule the exchange could have broken, whether it did or not: the evidence of verdicts. */
  tested: readonly Tested[];
  facts: ExchangeFacts;
  /** The bodies as read, for coverage; absent where none was read. */
  read?: ReadBodies;
}

function kindOf(endpoint: Endpoint, method: string): ExchangeKind {
  const upper = method.toUpperCase();
  // Literals, not a string made per exchange: the kind keys the tally's tables, and a string made
  // anew is hashed and looked up again wherever it is a key.
  if (endpoint.kind === 'checkout' && upper === 'POST') return 'POST checkout';
  if (endpoint.kind === 'checkout' && upper === 'GET') return 'GET checkout';
  if (endpoint.kind === 'upload' && upper === 'POST') return 'POST files';
  return 'other';
}

/** The format a finding or piece of evidence on one side is given in. */
export function formatOnSide(facts: ExchangeFacts, side: Side): FormatKey {
  if (side === 'request') return facts.requestDocument ?? facts.requestBody ?? 'any';
  return facts.responseDocument ?? facts.responseBody ?? facts.accept ?? 'any';
}

const WITH_REQUEST_EVIDENCE = RULES.filter((rule) => rule.evidence.request);
const WITH_RESPONSE_EVIDENCE = RULES.filter((rule) => rule.evidence.response);

/** What `testedBy` found for facts seen before: the same few combinations come again and again. */
const testedForFacts = new Map<number | string, readonly Tested[]>();
const FACTS_KEPT = 1024;

/** The rules an exchange could have broken, as the catalog states each rule's evidence. */
export function testedBy(facts: ExchangeFacts): readonly Tested[] {
  const key = factsKey(facts);
  let tested = testedForFacts.get(key);
  if (!tested) {
    tested = Object.freeze(findTested(facts));
    if (testedForFacts.size >= FACTS_KEPT) testedForFacts.clear();
    testedForFacts.set(key, tested);
  }
  return tested;
}

function findTested(facts: ExchangeFacts): Tested[] {
  const tested: Tested[] = [];
  for (const rule of WITH_REQUEST_EVIDENCE) {
    if (rule.evidence.request?.(facts))
      tested.push({ rule: rule.id, side: 'request', format: formatOnSide(facts, 'request') });
  }
  for (const rule of WITH_RESPONSE_EVIDENCE) {
    if (rule.evidence.response?.(facts))
      tested.push({ rule: rule.id, side: 'response', format: formatOnSide(facts, 'response') });
  }
  return tested;
}

/**
 * Judges one exchange against every rule that traffic can show, and says which rules it could
 * have broken. Pure: the only memory is `state`, which carries what earlier POSTs set so that a
 * later GET can be compared with it.
 */
export function judgeExchange(
  exchange: Exchange,
  state: CheckoutState = new CheckoutState(),
  client?: (out: Judging) => void,
): Judgement {
  const endpoint = endpointOf(exchange.request.url);
  const out = new Judging(kindOf(endpoint, exchange.request.method));
  client?.(out);
  const read = checkFormat(exchange, out);
  // A checkout is read (GET) and set up (POST): what other methods get is judged by the rules of
  // every answer alone (no 5xx, the format asked for), never as a read of the checkout.
  if (endpoint.kind === 'checkout' && out.facts.kind !== 'other')
    checkCheckout(exchange, read, state, endpoint.key, out);
  else if (endpoint.kind === 'upload') checkUpload(exchange, read, out);
  return { violations: out.items, tested: testedBy(out.facts), facts: out.facts, read };
}

/** A request under checkout or files of another shape: judged by what `client` checks alone. */
export function judgeMisaddressed(client: (out: Judging) => void): Judgement {
  const out = new Judging('other');
  client(out);
  return { violations: out.items, tested: testedBy(out.facts), facts: out.facts };
}

/** The violations alone, for callers that need no evidence. */
export function validateExchange(exchange: Exchange, state: CheckoutState = new CheckoutState()): Violation[] {
  return judgeExchange(exchange, state).violations;
}
