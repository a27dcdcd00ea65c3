import {
  askedFor,
  both,
  CHECKOUT,
  checkoutDocument,
  GET_CHECKOUT,
  isCheckout,
  POST_CHECKOUT,
  type RuleFacts,
} from './rule-facts.js';

// Rules of POST and GET checkout/{code}: the documents and what the service does with a set-up.

export const CHECKOUT_RULES = [
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
      'An XML checkout response has exactly one Tax element, child of the root, that is empty and carries nil="true" in the namespace http://www.w3.org/2001/XMLSchema-instance, whatever prefix is bound to it (xsi:nil, i:nil). A prefix bound to another namespace does not count; a second Tax is a violation. Tax is found by its namespace as well as its name: an <xsi:Tax>, or a Tax under a default namespace of its own, is another element.',
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
] as const satisfies readonly RuleFacts[];
