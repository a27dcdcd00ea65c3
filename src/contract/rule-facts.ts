import type { BodyFormat, ExchangeFacts, ExchangeKind } from './exchange-facts.js';

// What every rule of the catalog is made of, and the pieces its parts (rules-*.ts) share: where a
// rule is judged, in which formats, whether it writes to the service, what counts as evidence.
// A face or writer reads these fields, never the ID's spelling.

export type Severity = 'must' | 'should' | 'observe';

/** Where a rule can be judged: by probing a service (suite) and/or from recorded or live traffic. */
export type Face = 'suite' | 'traffic';

export type RuleArea = 'checkout' | 'upload' | 'client' | 'format' | 'http' | 'observe';

/** The formats a rule is judged in: one of them, both, or none (it does not depend on the format). */
export type RuleFormats = 'json' | 'xml' | 'both' | 'none';

export interface Evidence {
  /** What an exchange must be to test the rule, as the reason of an `untested` verdict says it. */
  what: string;
  /** The requests whose answers an `untested` reason describes. */
  kinds: readonly ExchangeKind[];
  /** Whether a client's request can break the rule (traffic only: the suite's own requests never count). */
  request?: (facts: ExchangeFacts) => boolean;
  /** Whether the answer can break it. Rules without either are tested by the suite's deliberate probes. */
  response?: (facts: ExchangeFacts) => boolean;
  /** Traffic tests it only when it holds the order answers that gave its URLs. */
  needsOrderAnswers?: boolean;
  /**
   * What a client must send before any answer can test the rule, where that is narrower than
   * calling one of its operations in its format (a ReturnUrl, an Accept header). Traffic without
   * such a request did not exercise the rule: it is skipped there, not untested.
   */
  exercised?: { /** As "this traffic holds no …" ends. */ what: string; by: (facts: ExchangeFacts) => boolean };
}

/** A request that asked for answers in this format, or got one when it asked for none in particular. */
export const askedFor = (format: BodyFormat) => (f: ExchangeFacts) =>
  f.accept === format || (f.accept === undefined && f.responseBody === format);

export interface RuleFacts {
  id: string;
  severity: Severity;
  /** Section(s) of the interface description the rule comes from. */
  seed: string;
  area: RuleArea;
  title: string;
  description: string;
  faces: readonly Face[];
  formats: RuleFormats;
  /** The suite must create or change something on the service to test it (skipped by --read-only). */
  writes: boolean;
  /** An option without which the suite cannot test it. */
  needs?: 'upload-size';
  evidence: Evidence;
}

export const both = ['suite', 'traffic'] as const;
export const suiteOnly = ['suite'] as const;
// What a client sends (a mislabelled upload, say) is judged in traffic only: the suite is the client.
export const trafficOnly = ['traffic'] as const;

export const CHECKOUT = ['POST checkout', 'GET checkout'] as const;
export const POST_CHECKOUT = ['POST checkout'] as const;
export const GET_CHECKOUT = ['GET checkout'] as const;
export const UPLOAD = ['POST files'] as const;
export const ANY = ['POST checkout', 'GET checkout', 'POST files'] as const;

export const isCheckout = (f: ExchangeFacts) => f.kind === 'POST checkout' || f.kind === 'GET checkout';

/** A checkout document of one format on either side: a POST's body, or an accepted answer. */
export const checkoutDocument = (format: BodyFormat): Evidence => ({
  what: `${format === 'xml' ? 'an XML' : 'a JSON'} checkout document: the body of a POST or an accepted checkout answer`,
  kinds: CHECKOUT,
  request: (f) => f.kind === 'POST checkout' && f.requestDocument === format,
  response: (f) => isCheckout(f) && f.accepted && f.responseDocument === format,
});

/** An accepted upload answer of one format. */
export const uploadAnswer = (format: BodyFormat): Evidence => ({
  what: `an accepted ${format.toUpperCase()} upload answer`,
  kinds: UPLOAD,
  response: (f) => f.kind === 'POST files' && f.accepted && f.responseDocument === format,
});
