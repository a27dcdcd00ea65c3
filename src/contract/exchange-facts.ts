// What the core learns about one exchange while judging it: enough to tell, for every rule, whether
// the exchange could have broken it. The catalog states each rule's evidence over these facts, so
// a verdict of `passed` always rests on exchanges that could have shown a failure.

export type BodyFormat = 'json' | 'xml';

/** The requests of the interface, as reasons for an untested rule name them. */
export type ExchangeKind = 'POST checkout' | 'GET checkout' | 'POST files' | 'other';

export interface ExchangeFacts {
  kind: ExchangeKind;
  /** The answer's status; undefined when no answer came. */
  status?: number;
  /** Answered 2xx. */
  accepted: boolean;
  /** The request body was read as a JSON or XML document. */
  requestDocument?: BodyFormat;
  /** The request body was declared JSON or XML (read or not). */
  requestBody?: BodyFormat;
  /** The answer's body was read as a JSON or XML document. */
  responseDocument?: BodyFormat;
  /** The answer's body looks like JSON or XML (read or not). */
  responseBody?: BodyFormat;
  /** The answer had no body at all. */
  responseEmpty: boolean;
  /** The answer's body was held whole as text, so its format could be judged. */
  responseText: boolean;
  /** The format an `Accept: application/json` or `application/xml` asked for. */
  accept?: BodyFormat;
  /** Members of a checkout request or answer that a rule reads. */
  returnUrlSent: boolean;
  returnUrlOutOfRange: boolean;
  statusMember: boolean;
  paymentUrlMember: boolean;
  countryMember: boolean;
  /** A checkout request carrying a Country. */
  requestCountry: boolean;
  /**
   * A ReturnUrl, or a Country, sent or answered but masked by the recording (a token, --redact):
   * its rule was exercised, but the exchange is no evidence for it (see isMasked).
   */
  returnUrlMasked: boolean;
  countryMasked: boolean;
  /**
   * A request or answer with a member the recording masked whole, whose type and shape were
   * therefore not judged: no evidence for its schema rule.
   */
  requestShapeMasked: boolean;
  responseShapeMasked: boolean;
  /** A request whose URL client.given-urls can judge: misshaped, or related to an order answer seen. */
  givenUrlJudged: boolean;
  /** A GET whose checkout an earlier POST in the same traffic set up. */
  afterPost: boolean;
  /** A GET of a checkout an earlier POST in the same traffic set up, however it was answered. */
  getAfterSetUp: boolean;
  /** A POST checkout whose body was read and breaks no must rule: one the service must take. */
  requestSound: boolean;
  /** An upload whose Content-Type (or file part's) is one the service must refuse. */
  uploadTypeRefused: boolean;
  /** An upload of an allowed type whose first bytes are known (so its declared type can be checked). */
  uploadBytesKnown: boolean;
  /** An upload answer naming a FileType, for a file whose type its bytes tell. */
  fileTypeComparable: boolean;
}

export function noFacts(kind: ExchangeKind): ExchangeFacts {
  return {
    kind,
    accepted: false,
    responseEmpty: false,
    responseText: false,
    returnUrlSent: false,
    returnUrlOutOfRange: false,
    statusMember: false,
    paymentUrlMember: false,
    countryMember: false,
    requestCountry: false,
    returnUrlMasked: false,
    countryMasked: false,
    requestShapeMasked: false,
    responseShapeMasked: false,
    givenUrlJudged: false,
    afterPost: false,
    getAfterSetUp: false,
    requestSound: false,
    uploadTypeRefused: false,
    uploadBytesKnown: false,
    fileTypeComparable: false,
  };
}

/**
 * The yes-or-no facts as the bits of one number, each read by its own name: a loop over the
 * names read each by a name that varied, which cost more than all the rest of the key. A fact
 * added to ExchangeFacts is added here, or test/contract/exchange-facts.test.ts fails.
 */
function flagBits(facts: ExchangeFacts): number {
  return (
    (facts.accepted ? 1 : 0) |
    (facts.responseEmpty ? 1 << 1 : 0) |
    (facts.responseText ? 1 << 2 : 0) |
    (facts.returnUrlSent ? 1 << 3 : 0) |
    (facts.returnUrlOutOfRange ? 1 << 4 : 0) |
    (facts.statusMember ? 1 << 5 : 0) |
    (facts.paymentUrlMember ? 1 << 6 : 0) |
    (facts.countryMember ? 1 << 7 : 0) |
    (facts.requestCountry ? 1 << 8 : 0) |
    (facts.returnUrlMasked ? 1 << 9 : 0) |
    (facts.countryMasked ? 1 << 10 : 0) |
    (facts.requestShapeMasked ? 1 << 11 : 0) |
    (facts.responseShapeMasked ? 1 << 12 : 0) |
    (facts.givenUrlJudged ? 1 << 13 : 0) |
    (facts.afterPost ? 1 << 14 : 0) |
    (facts.getAfterSetUp ? 1 << 15 : 0) |
    (facts.requestSound ? 1 << 16 : 0) |
    (facts.uploadTypeRefused ? 1 << 17 : 0) |
    (facts.uploadBytesKnown ? 1 << 18 : 0) |
    (facts.fileTypeComparable ? 1 << 19 : 0)
  );
}

/** The kind as a digit of base 4; -1 for a value no judge sets. */
function kindDigit(kind: ExchangeKind): number {
  switch (kind) {
    case 'POST checkout':
      return 0;
    case 'GET checkout':
      return 1;
    case 'POST files':
      return 2;
    case 'other':
      return 3;
    default:
      return -1;
  }
}
const KINDS = 4;
/** A format fact as a digit of base 3: absent, JSON, XML; -1 for a value no judge sets. */
const formatDigit = (format: BodyFormat | undefined) =>
  format === undefined ? 0 : format === 'json' ? 1 : format === 'xml' ? 2 : -1;
/** Statuses a number key holds (0-999, and 1000 for no answer); any other gets a string key. */
const STATUSES = 1001;

/**
 * The facts as one number (or, for values outside the usual, one short string), for keeping
 * what follows from them: the catalog's evidence is a function of the facts alone, and traffic
 * brings the same few combinations again and again. A number is made without a string to build
 * and hash for each exchange. The yes-or-no facts are bits of it, then the kind, the formats and
 * the status: at most 2^20 · 4 · 3^5 · 1001, well within the integers a double holds exactly.
 * test/contract/exchange-facts.test.ts holds every fact to changing the key.
 */
export function factsKey(facts: ExchangeFacts): number | string {
  const bits = flagBits(facts);
  const kind = kindDigit(facts.kind);
  const digits = [
    formatDigit(facts.requestDocument),
    formatDigit(facts.requestBody),
    formatDigit(facts.responseDocument),
    formatDigit(facts.responseBody),
    formatDigit(facts.accept),
  ];
  const formatCode = digits.includes(-1) ? -1 : digits.reduce((code, digit) => code * 3 + digit, 0);
  const status = facts.status === undefined ? STATUSES - 1 : facts.status;
  if (kind < 0 || formatCode < 0 || !Number.isInteger(status) || status < 0 || status >= STATUSES)
    return `${facts.kind}|${facts.status}|${facts.requestDocument}|${facts.requestBody}|${facts.responseDocument}|${facts.responseBody}|${facts.accept}|${bits}`;
  return ((bits * KINDS + kind) * 243 + formatCode) * STATUSES + status;
}
