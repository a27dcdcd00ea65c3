import type { BodyFormat, ExchangeFacts, ExchangeKind } from './exchange-facts.js';

// The rule catalog: the one place that knows a rule. IDs are a public interface (reports, JUnit
// names, recordings, --only/--skip): an ID never changes meaning and is never reused; a rule can
// only be added. Everything a face or writer needs to know of a rule (where it is judged, in which
// formats, whether it writes to the service, what counts as evidence) is a field here, never
// re-derived from the ID's spelling.

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
const askedFor = (format: BodyFormat) => (f: ExchangeFacts) =>
  f.accept === format || (f.accept === undefined && f.responseBody === format);

interface RuleFacts {
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

const both = ['suite', 'traffic'] as const;
const suiteOnly = ['suite'] as const;
// What a client sends (a mislabelled upload, say) is judged in traffic only: the suite is the client.
const trafficOnly = ['traffic'] as const;

const CHECKOUT = ['POST checkout', 'GET checkout'] as const;
const POST_CHECKOUT = ['POST checkout'] as const;
const GET_CHECKOUT = ['GET checkout'] as const;
const UPLOAD = ['POST files'] as const;
const ANY = ['POST checkout', 'GET checkout', 'POST files'] as const;

const isCheckout = (f: ExchangeFacts) => f.kind === 'POST checkout' || f.kind === 'GET checkout';

/** A checkout document of one format on either side: a POST's body, or an accepted answer. */
const checkoutDocument = (format: BodyFormat): Evidence => ({
  what: `${format === 'xml' ? 'an XML' : 'a JSON'} checkout document: the body of a POST or an accepted checkout answer`,
  kinds: CHECKOUT,
  request: (f) => f.kind === 'POST checkout' && f.requestDocument === format,
  response: (f) => isCheckout(f) && f.accepted && f.responseDocument === format,
});

/** An accepted upload answer of one format. */
const uploadAnswer = (format: BodyFormat): Evidence => ({
  what: `an accepted ${format.toUpperCase()} upload answer`,
  kinds: UPLOAD,
  response: (f) => f.kind === 'POST files' && f.accepted && f.responseDocument === format,
});

const CATALOG = [
  {
    id: 'checkout.json.casing',
    severity: 'must',
    seed: '§2',
    area: 'checkout',
    title: 'JSON checkout property names start lower-case',
    description:
      'Every property name, at every depth, in a JSON checkout request and response starts with a lower-case letter (returnUrl, paymentUrl, billing.address.postCode).',
    faces: both,
    formats: 'json',
    writes: false,
    evidence: checkoutDocument('json'),
  },
  {
    id: 'checkout.xml.casing',
    severity: 'must',
    seed: '§2',
    area: 'checkout',
    title: 'XML checkout element names are PascalCase',
    description:
      'Every element name, at every depth, in an XML checkout request and response starts with an upper-case letter (ReturnUrl, PaymentUrl, Billing/Address/PostCode).',
    faces: both,
    formats: 'xml',
    writes: false,
    evidence: checkoutDocument('xml'),
  },
  {
    id: 'checkout.xml.root',
    severity: 'must',
    seed: '§2',
    area: 'checkout',
    title: 'XML checkout root element is Checkout',
    description:
      'The root element of an XML checkout request and response is <Checkout> in no namespace, and so is every element below it (no default namespace, no prefix bound to one: an XmlSerializer client refuses {urn:…}Checkout). Declarations of the xsi and xsd prefixes are fine.',
    faces: both,
    formats: 'xml',
    writes: false,
    evidence: checkoutDocument('xml'),
  },
  {
    id: 'checkout.response.schema',
    severity: 'must',
    seed: '§2.2, §2.3',
    area: 'checkout',
    title: 'Checkout response has the documented fields and types',
    description:
      'A checkout response (JSON or XML) has Amount (a decimal number; in XML an xs:decimal text), Status (string), PaymentUrl (string), ReturnUrl (string, or absent/nil when none was sent) and Billing.Address whose Name, Line1, PostCode, City and Country are strings where present. Extra members are allowed.',
    faces: both,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an accepted POST checkout answer whose body could be read',
      kinds: POST_CHECKOUT,
      response: (f) =>
        f.kind === 'POST checkout' &&
        f.accepted &&
        (f.responseDocument !== undefined || f.responseEmpty) &&
        !f.responseShapeMasked,
    },
  },
  {
    id: 'checkout.response.extra',
    severity: 'observe',
    seed: '§2.5',
    area: 'checkout',
    title: 'Members the description does not name',
    description:
      'Lists checkout response members that the interface description does not name (the real service adds email to the billing address). Never fails; with --strict they are reported as warnings.',
    faces: both,
    formats: 'both',
    writes: false,
    evidence: {
      what: 'an accepted checkout answer whose body could be read',
      kinds: CHECKOUT,
      response: (f) => isCheckout(f) && f.accepted && f.responseDocument !== undefined,
    },
  },
  {
    id: 'checkout.xml.tax-nil',
    severity: 'must',
    seed: '§2.2',
    area: 'checkout',
    title: 'XML checkout response carries a nil Tax element',
    description:
      'An XML checkout response has exactly one Tax element, child of the root, that is empty and carries nil="true" in the namespace http://www.w3.org/2001/XMLSchema-instance, whatever prefix is bound to it (xsi:nil, i:nil). A prefix bound to another namespace does not count; a second Tax is a violation.',
    faces: both,
    formats: 'xml',
    writes: false,
    evidence: {
      exercised: { what: 'checkout request asking for XML', by: (f) => isCheckout(f) && askedFor('xml')(f) },
      what: 'an accepted XML checkout answer',
      kinds: CHECKOUT,
      response: (f) => isCheckout(f) && f.accepted && f.responseDocument === 'xml',
    },
  },
  {
    id: 'checkout.json.no-tax',
    severity: 'must',
    seed: '§2.2',
    area: 'checkout',
    title: 'JSON checkout response has no tax member',
    description: 'The Tax element exists only in the XML form; a JSON checkout response has no tax member.',
    faces: both,
    formats: 'json',
    writes: false,
    evidence: {
      exercised: { what: 'checkout request asking for JSON', by: (f) => isCheckout(f) && askedFor('json')(f) },
      what: 'an accepted JSON checkout answer',
      kinds: CHECKOUT,
      response: (f) => isCheckout(f) && f.accepted && f.responseDocument === 'json',
    },
  },
  {
    id: 'checkout.return-url.length',
    severity: 'must',
    seed: '§2.1, §4.1 r1, §8',
    area: 'checkout',
    title: 'ReturnUrl is 5 to 512 characters',
    description:
      'ReturnUrl, when sent, has 5 to 512 characters inclusive, counted in UTF-16 code units as the real service (.NET) counts. The suite checks that lengths 4 and 513 are rejected (4xx) and 5 and 512 accepted (2xx), in JSON and XML, and probes the ways services miscount: the empty string (rejected), 512 units written with é (accepted; a service counting UTF-8 bytes refuses it), 513 units that are 512 code points (rejected; a service counting code points accepts it), 513 units ending in a space and 513 units holding %20 (rejected; a service that trims white space or decodes escapes before counting accepts them). In traffic, a client request outside the range is a violation, a 2xx answer to it is a second one, and a 4xx answer to a set-up inside the range that breaks no must rule is a violation of the service.',
    faces: both,
    formats: 'both',
    writes: true,
    evidence: {
      exercised: {
        what: 'POST checkout sending a ReturnUrl',
        by: (f) => f.kind === 'POST checkout' && (f.returnUrlSent || f.returnUrlMasked),
      },
      what: 'a POST checkout sending a ReturnUrl, and its answer',
      kinds: POST_CHECKOUT,
      request: (f) => f.kind === 'POST checkout' && f.returnUrlSent,
      // An answer to a ReturnUrl out of range (accepted: a breach), or to a sound set-up (refused: one too).
      response: (f) =>
        f.kind === 'POST checkout' &&
        f.status !== undefined &&
        (f.returnUrlOutOfRange || (f.returnUrlSent && f.requestSound)),
    },
  },
  {
    id: 'checkout.status.open',
    severity: 'must',
    seed: '§3, §4.1 r2',
    area: 'checkout',
    title: 'A fresh set-up answers Status Open',
    description: 'The answer to POST checkout/{code} has Status = Open.',
    faces: both,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an accepted POST checkout answer carrying a Status',
      kinds: POST_CHECKOUT,
      response: (f) => f.kind === 'POST checkout' && f.accepted && f.statusMember,
    },
  },
  {
    id: 'checkout.echo',
    severity: 'must',
    seed: '§4.1 r3',
    area: 'checkout',
    title: 'POST echoes ReturnUrl and Billing',
    description:
      'The answer to POST checkout/{code} carries the ReturnUrl and every Billing.Address field exactly as the request sent them, whatever order, encoding or spelling the request used, and nothing of an earlier set-up that this request left out. Two set-ups sent at once are each answered with their own values.',
    faces: both,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an accepted POST checkout answer to a request whose body could be read',
      kinds: POST_CHECKOUT,
      response: (f) =>
        f.kind === 'POST checkout' && f.accepted && f.requestDocument !== undefined && f.responseDocument !== undefined,
    },
  },
  {
    id: 'checkout.payment-url',
    severity: 'should',
    seed: '§4.1 r4',
    area: 'checkout',
    title: 'PaymentUrl is an absolute http(s) URL',
    description:
      'PaymentUrl is an absolute http or https URL, since the client redirects a browser to it, as RFC 3986 and RFC 9110 §4.2 read it: a non-empty host, no white space or control characters anywhere. What a lenient parser repairs (WHATWG new URL() drops tabs and newlines and reads http:///x as host x) is not a valid URL.',
    faces: both,
    formats: 'both',
    writes: false,
    evidence: {
      what: 'an accepted checkout answer carrying a PaymentUrl',
      kinds: CHECKOUT,
      response: (f) => isCheckout(f) && f.accepted && f.paymentUrlMember,
    },
  },
  {
    id: 'checkout.get.shape',
    severity: 'must',
    seed: '§4.2',
    area: 'checkout',
    title: 'GET checkout answers the same shape as POST',
    description:
      'GET checkout/{code} answers the same shape as the POST answer: the checkout.response.schema checks, in both formats.',
    faces: both,
    formats: 'both',
    writes: false,
    evidence: {
      what: 'an accepted GET checkout answer',
      kinds: GET_CHECKOUT,
      response: (f) =>
        f.kind === 'GET checkout' &&
        f.accepted &&
        (f.responseDocument !== undefined || f.responseEmpty) &&
        !f.responseShapeMasked,
    },
  },
  {
    id: 'checkout.get.consistent',
    severity: 'should',
    seed: '§4.1, §4.2',
    area: 'checkout',
    title: 'GET after POST answers what the POST set',
    description:
      'A GET checkout/{code} after a POST to the same code answers the ReturnUrl and Billing that the POST set.',
    faces: both,
    formats: 'both',
    writes: true,
    evidence: {
      exercised: {
        what: 'GET of a checkout that a POST in it set up',
        by: (f) => f.kind === 'GET checkout' && f.getAfterSetUp,
      },
      what: 'an accepted GET checkout answer after a POST set that checkout up',
      kinds: CHECKOUT,
      response: (f) => f.kind === 'GET checkout' && f.accepted && f.afterPost && f.responseDocument !== undefined,
    },
  },
  {
    id: 'checkout.country-code',
    severity: 'should',
    seed: '§2.3',
    area: 'checkout',
    title: 'Country is a two-letter code',
    description:
      'Country is a short country code: two upper-case ASCII letters (ISO 3166-1 alpha-2 on the real service), in what a client sends as in what a service answers: a request whose Country is a name (Netherlands) is flagged on the request side.',
    faces: both,
    formats: 'both',
    writes: false,
    evidence: {
      exercised: {
        what: 'Country, sent or answered',
        by: (f) => f.requestCountry || f.countryMember || f.countryMasked,
      },
      what: 'a checkout request or accepted answer carrying a Country',
      kinds: CHECKOUT,
      request: (f) => f.kind === 'POST checkout' && f.requestCountry,
      response: (f) => isCheckout(f) && f.accepted && f.countryMember,
    },
  },
  {
    id: 'checkout.status.known',
    severity: 'should',
    seed: '§2.5',
    area: 'checkout',
    title: 'Status is a known payment status',
    description:
      'Status is one of the values known from the real service: Open, Successful, Cancelled, Failed. Another value is reported with the value seen.',
    faces: both,
    formats: 'both',
    writes: false,
    evidence: {
      what: 'an accepted checkout answer carrying a Status',
      kinds: CHECKOUT,
      response: (f) => isCheckout(f) && f.accepted && f.statusMember,
    },
  },
  {
    id: 'upload.content-type',
    severity: 'must',
    seed: '§4.3',
    area: 'upload',
    title: 'Uploads are PDF, PNG or JPEG',
    description:
      'An upload request has Content-Type application/pdf, image/png or image/jpeg (parameters allowed), or multipart/form-data whose file part carries one of those. The suite checks that text/plain and application/octet-stream bodies are rejected (4xx). In traffic, a request with another type is a violation, and a 2xx answer to it is a second one.',
    faces: both,
    formats: 'none',
    writes: true,
    evidence: {
      what: 'an upload request, and an answer to one of a refused type',
      kinds: UPLOAD,
      request: (f) => f.kind === 'POST files',
      response: (f) => f.kind === 'POST files' && f.uploadTypeRefused && f.status !== undefined,
    },
  },
  {
    id: 'upload.raw',
    severity: 'must',
    seed: '§4.3',
    area: 'upload',
    title: 'A raw-body upload is accepted',
    description:
      "A file sent as the raw request body with a correct Content-Type is accepted (2xx). The suite uploads each type named by --upload-types (default pdf). A book's content file must be a PDF: PNG and JPEG go to a slot that takes images (an item's cover) when the order gives one; a content slot refusing an image is an observation, never a failure.",
    faces: suiteOnly,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an answer to a raw upload of each type of --upload-types',
      kinds: UPLOAD,
    },
  },
  {
    id: 'upload.multipart',
    severity: 'must',
    seed: '§4.3',
    area: 'upload',
    title: 'A multipart/form-data upload is accepted',
    description:
      'The same file sent as a multipart/form-data file part is accepted (2xx), also when the form carries a text field before the file part, as browsers and HTTP clients write forms; FileType then names the file part.',
    faces: suiteOnly,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an answer to a multipart/form-data upload of each type of --upload-types',
      kinds: UPLOAD,
    },
  },
  {
    id: 'upload.response.schema',
    severity: 'must',
    seed: '§2.4',
    area: 'upload',
    title: 'Upload response has FileName and FileType',
    description: 'An upload response has FileName (string) and FileType (string), in JSON and in XML.',
    faces: both,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an accepted upload answer whose body could be read',
      kinds: UPLOAD,
      response: (f) =>
        f.kind === 'POST files' &&
        f.accepted &&
        (f.responseDocument !== undefined || f.responseEmpty) &&
        !f.responseShapeMasked,
    },
  },
  {
    id: 'upload.json.casing',
    severity: 'must',
    seed: '§2',
    area: 'upload',
    title: 'JSON upload property names start lower-case',
    description: 'Every JSON property name of an upload response starts with a lower-case letter.',
    faces: both,
    formats: 'json',
    writes: true,
    evidence: uploadAnswer('json'),
  },
  {
    id: 'upload.xml.casing',
    severity: 'must',
    seed: '§2',
    area: 'upload',
    title: 'XML upload element names are PascalCase',
    description: 'Every XML element name of an upload response starts with an upper-case letter.',
    faces: both,
    formats: 'xml',
    writes: true,
    evidence: uploadAnswer('xml'),
  },
  {
    id: 'upload.xml.root',
    severity: 'must',
    seed: '§2',
    area: 'upload',
    title: 'XML upload root element is UploadResult',
    description:
      'The root element of an XML upload response is <UploadResult> in no namespace, and so is every element below it.',
    faces: both,
    formats: 'xml',
    writes: true,
    evidence: uploadAnswer('xml'),
  },
  {
    id: 'upload.file-type',
    severity: 'must',
    seed: '§2.4, §4.3 r3',
    area: 'upload',
    title: 'FileType names the type of the bytes sent',
    description:
      'FileType names the type of the uploaded bytes as their magic numbers tell it: PDF for %PDF-, PNG for the PNG signature, JPEG or JPG for a JPEG start-of-image; compared case-insensitively. The suite also sends bytes of one type labelled as another (a JPEG as image/png): the service may refuse it, but if it accepts it, FileType names the bytes, not the label.',
    faces: both,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an accepted upload answer naming a FileType for a file whose bytes tell its type',
      kinds: UPLOAD,
      response: (f) => f.kind === 'POST files' && f.accepted && f.fileTypeComparable,
    },
  },
  {
    id: 'upload.content-sniff',
    severity: 'should',
    seed: '§4.3',
    area: 'upload',
    title: 'Declared upload type matches the bytes',
    description:
      'The declared Content-Type of an upload (or of its multipart file part) matches the magic bytes of the body: %PDF- for application/pdf, the PNG signature for image/png, FF D8 FF for image/jpeg.',
    faces: trafficOnly,
    formats: 'none',
    writes: true,
    evidence: {
      what: 'an upload of an allowed type whose first bytes were recorded',
      kinds: UPLOAD,
      request: (f) => f.kind === 'POST files' && f.uploadBytesKnown,
    },
  },
  {
    id: 'client.given-urls',
    severity: 'must',
    seed: '§1, §4.1, §4.3',
    area: 'client',
    title: 'Checkout and upload requests go to the URLs the order gave',
    description:
      "Checkout and upload requests go to the URLs that the order endpoints gave (checkout.setupUrl, items[].files.*.uploadUrl of a POST orders or GET orders/{id} answer), used as given, never built by the client. A violation: a request under the interface whose path is not the shape of a given URL (checkout without a code, files/{x}/content, extra or missing segments), or that puts a value of a seen order answer other than its codes (the order's id, say) where a code belongs. A well-shaped URL with a code that no order answer in the traffic gave is not judged (the client may hold URLs from an earlier order).",
    faces: trafficOnly,
    formats: 'none',
    writes: false,
    evidence: {
      what: 'a checkout or upload request in traffic that holds the answer of the order that gave its URL, or a request under checkout or files of another shape',
      kinds: ANY,
      request: (f) => f.givenUrlJudged,
      needsOrderAnswers: true,
    },
  },
  {
    id: 'checkout.request.schema',
    severity: 'must',
    seed: '§2.1, §2.3',
    area: 'client',
    title: 'A checkout request has the documented "in" form',
    description:
      'A checkout request (JSON or XML) has ReturnUrl a string when present, and Billing an object when present holding its address in Address, an object whose Name, Line1, PostCode, City and Country are strings where present. Address fields directly under Billing, a Billing that is a string, a ReturnUrl that is a number are violations: a service binding the documented form drops them silently.',
    faces: trafficOnly,
    formats: 'both',
    writes: false,
    evidence: {
      what: 'the JSON or XML body of a POST checkout',
      kinds: POST_CHECKOUT,
      request: (f) => f.kind === 'POST checkout' && f.requestDocument !== undefined && !f.requestShapeMasked,
    },
  },
  {
    id: 'format.well-formed',
    severity: 'must',
    seed: '§2',
    area: 'format',
    title: 'JSON and XML bodies parse',
    description:
      "Every JSON or XML body, request or response, parses as a strict parser reads it: an XML declaration's encoding matches the bytes (UTF-8 declaring utf-16 is refused by libxml2 and .NET alike), a charset in Content-Type agrees with the bytes and the declaration, and JSON is UTF-8 without a byte order mark and names no member twice in one object (I-JSON, RFC 7493). A body in a Content-Encoding (gzip, deflate, br) is read once decoded, and one that does not decode as its coding names is not well-formed. A document in an 8-bit encoding that its declaration and charset name (ISO-8859-1) is well-formed, and every rule reads its characters as that encoding decodes them. XML with a DOCTYPE or entity declarations is not accepted (no entity is ever expanded).",
    faces: both,
    formats: 'both',
    writes: false,
    evidence: {
      what: 'a JSON or XML body, sent or answered',
      kinds: ANY,
      request: (f) => f.requestBody !== undefined,
      response: (f) => f.responseBody !== undefined,
    },
  },
  {
    id: 'format.response-content-type',
    severity: 'must',
    seed: '§2',
    area: 'format',
    title: 'Response Content-Type names the body format',
    description:
      "A response's Content-Type names the format of its body: JSON bodies application/json (or +json), XML bodies application/xml or text/xml (or +xml).",
    faces: both,
    formats: 'both',
    writes: false,
    evidence: {
      what: 'an answer with a JSON or XML body',
      kinds: ANY,
      response: (f) => f.responseBody !== undefined,
    },
  },
  {
    id: 'format.json',
    severity: 'must',
    seed: '§2',
    area: 'format',
    title: 'Accept: application/json is answered in JSON',
    description:
      'A request whose Accept prefers JSON (application/json with or without parameters, or listed before or with a higher q-value than any XML type, */* after it included) is answered with a JSON body, success and refusal alike: a body that is neither JSON nor XML (plain text, an HTML page) answers no such request.',
    faces: both,
    formats: 'json',
    writes: false,
    evidence: {
      exercised: { what: 'request whose Accept prefers JSON', by: (f) => f.accept === 'json' },
      what: 'an answer with a body to a request whose Accept prefers JSON',
      kinds: ANY,
      response: (f) => f.accept === 'json' && f.responseText,
    },
  },
  {
    id: 'format.xml',
    severity: 'must',
    seed: '§2',
    area: 'format',
    title: 'Accept: application/xml is answered in XML',
    description:
      'A request whose Accept prefers XML (application/xml or text/xml, with parameters, in a list, with q-values, followed by */*) is answered with an XML body, success and refusal alike (the real service selects XML by Accept); a body that is neither JSON nor XML answers no such request, and an HTML page is never taken for XML.',
    faces: both,
    formats: 'xml',
    writes: false,
    evidence: {
      exercised: { what: 'request whose Accept prefers XML', by: (f) => f.accept === 'xml' },
      what: 'an answer with a body to a request whose Accept prefers XML',
      kinds: ANY,
      response: (f) => f.accept === 'xml' && f.responseText,
    },
  },
  {
    id: 'format.xml-request',
    severity: 'must',
    seed: '§4.1',
    area: 'format',
    title: 'An XML checkout request is accepted',
    description:
      'A valid checkout request sent as XML (Content-Type: application/xml) is accepted and answered. In traffic, a 4xx or 5xx answer to a well-formed XML set-up that breaks no must rule is a violation of the service; the rule is never passed on XML set-ups that were all refused.',
    faces: both,
    formats: 'xml',
    writes: true,
    evidence: {
      what: 'an answer to a POST checkout whose XML body could be read and breaks no must rule',
      kinds: POST_CHECKOUT,
      response: (f) =>
        f.kind === 'POST checkout' && f.requestDocument === 'xml' && f.requestSound && f.status !== undefined,
    },
  },
  {
    id: 'http.no-server-error',
    severity: 'must',
    seed: '§7',
    area: 'http',
    title: 'No 5xx answers',
    description: 'No request, valid or not, is answered with a 5xx status.',
    faces: both,
    formats: 'none',
    writes: false,
    evidence: {
      what: 'an answer to any request',
      kinds: ANY,
      response: (f) => f.status !== undefined,
    },
  },
  {
    id: 'observe.status-codes',
    severity: 'observe',
    seed: '§4.4',
    area: 'observe',
    title: 'Status codes of successes and rejections',
    description: 'Records the status code (and Location header) of each kind of success and rejection.',
    faces: suiteOnly,
    formats: 'none',
    writes: false,
    evidence: {
      what: 'answers to checkout and upload requests',
      kinds: ANY,
    },
  },
  {
    id: 'observe.error-body',
    severity: 'observe',
    seed: '§7',
    area: 'observe',
    title: 'Shape of error bodies',
    description: 'Records the format and member names of error bodies.',
    faces: suiteOnly,
    formats: 'none',
    writes: false,
    evidence: {
      what: 'a refused checkout or upload request',
      kinds: ANY,
    },
  },
  {
    id: 'observe.default-format',
    severity: 'observe',
    seed: '§4.4',
    area: 'observe',
    title: 'Format answered without Accept',
    description: 'Records the format answered when no Accept header is sent.',
    faces: suiteOnly,
    formats: 'none',
    writes: false,
    evidence: {
      what: 'an answer to GET checkout without Accept',
      kinds: GET_CHECKOUT,
    },
  },
  {
    id: 'observe.unknown-code',
    severity: 'observe',
    seed: '§7',
    area: 'observe',
    title: 'Answer to an unknown code',
    description: 'Records what an unknown checkout or upload code is answered with (404? 400?).',
    faces: suiteOnly,
    formats: 'none',
    writes: false,
    evidence: {
      what: 'an answer to an unknown checkout or upload code',
      kinds: ANY,
    },
  },
  {
    id: 'observe.auth',
    severity: 'observe',
    seed: '§5',
    area: 'observe',
    title: 'Requests without credentials',
    description: 'Records whether a request without credentials is refused (401/403) when credentials were configured.',
    faces: suiteOnly,
    formats: 'none',
    writes: false,
    evidence: {
      what: 'the probe made without credentials',
      kinds: ANY,
    },
  },
  {
    id: 'observe.text-xml',
    severity: 'observe',
    seed: '§4.4',
    area: 'observe',
    title: 'Accept: text/xml',
    description: 'Records whether Accept: text/xml selects XML too.',
    faces: suiteOnly,
    formats: 'none',
    writes: false,
    evidence: {
      what: 'an answer to GET checkout with Accept: text/xml',
      kinds: GET_CHECKOUT,
    },
  },
  {
    id: 'observe.large-upload',
    severity: 'observe',
    seed: '§8',
    area: 'observe',
    title: 'Largest upload tried',
    description: 'Records the largest upload size tried and its answer (only with --upload-size).',
    faces: suiteOnly,
    formats: 'none',
    writes: true,
    needs: 'upload-size',
    evidence: {
      what: 'an answer to the large upload of --upload-size',
      kinds: UPLOAD,
    },
  },
] as const satisfies readonly RuleFacts[];

/** A rule ID of the catalog: a misspelt ID does not compile. */
export type RuleId = (typeof CATALOG)[number]['id'];

export interface Rule extends RuleFacts {
  id: RuleId;
}

export const RULES: readonly Rule[] = CATALOG;

const byId = new Map<string, Rule>(RULES.map((rule) => [rule.id, rule]));

export function ruleById(id: RuleId): Rule {
  const rule = byId.get(id);
  if (!rule) throw new Error(`unknown rule ${id}`);
  return rule;
}

export function isRuleId(id: string): id is RuleId {
  return byId.has(id);
}

/** The formats a rule is judged in, as verdicts list them ('any' for a rule of no format). */
export function formatsOf(rule: Rule): ('json' | 'xml' | 'any')[] {
  if (rule.formats === 'none') return ['any'];
  if (rule.formats === 'both') return ['json', 'xml'];
  return [rule.formats];
}

/**
 * Selects rules by --only / --skip lists whose items are IDs or prefixes ("upload." or "upload").
 * An item that matches no rule is returned in `unknown` so the CLI can refuse it.
 */
export function selectRules(only: readonly string[] = [], skip: readonly string[] = []) {
  const matches = (id: string, item: string) => id === item || id.startsWith(item.endsWith('.') ? item : `${item}.`);
  const unknown = [...only, ...skip].filter((item) => !RULES.some((rule) => matches(rule.id, item)));
  const selected = RULES.filter(
    (rule) =>
      (only.length === 0 || only.some((item) => matches(rule.id, item))) &&
      !skip.some((item) => matches(rule.id, item)),
  );
  return { selected: new Set<RuleId>(selected.map((rule) => rule.id)), unknown };
}
