import { ANY, both, POST_CHECKOUT, type RuleFacts, trafficOnly } from './rule-facts.js';

// What a client alone must send, and the rules of formats and HTTP that hold for every request.

export const CLIENT_FORMAT_HTTP_RULES = [
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
      'A checkout request (JSON or XML) has ReturnUrl a string when present, and Billing an object when present holding its address in Address, an object whose Name, Line1, PostCode, City and Country are strings where present. A member written null in JSON or xsi:nil="true" in XML is the same as one left out, as Json.NET, Jackson and DataContractSerializer write an unset member. Address fields directly under Billing, a Billing that is a string, a ReturnUrl that is a number are violations: a service binding the documented form drops them silently.',
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
      "Every JSON or XML body, request or response, parses as a strict parser reads it: an XML declaration's encoding matches the bytes (UTF-8 declaring utf-16 is refused by libxml2 and .NET alike), a charset in Content-Type agrees with the bytes and the declaration, and JSON is UTF-8 without a byte order mark and names no member twice in one object (I-JSON, RFC 7493). A body in a Content-Encoding (gzip, deflate, br) is read once decoded, and one that does not decode as its coding names is not well-formed. A document in an 8-bit encoding that its declaration and charset name (ISO-8859-1, say) is well-formed, and every rule reads its characters as that encoding's own table decodes them, the same on every Node.js line the tool runs on: windows-1252 bytes 0x80–0x9F as € ‚ “ ” Š …, ISO-8859-1 bytes 0x80–0x9F as the C1 controls (as libxml2, .NET and Java read them, not as WHATWG's label mapping does). No entity of a document type declaration is ever expanded.",
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
    title: 'An XML checkout request is accepted, as XML writers write it',
    description:
      'A checkout request sent as XML is accepted and answered, as XML writers write it: Content-Type application/xml or text/xml, with or without a charset in any case; a declaration in single or double quotes or none; members in any order; Billing left out, empty or nil; a member the description does not name (a client sending back the address it was given, Email included). In traffic, a 4xx or 5xx answer to a well-formed XML set-up that breaks no must rule is a violation of the service; the rule is never passed on XML set-ups that were all refused. A set-up holding a document type declaration may be refused (4xx), but an entity it defines never reaches the answer (no expansion, no external fetch: XXE) and it is never answered 5xx.',
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
    id: 'format.json-request',
    severity: 'must',
    seed: '§4.1',
    area: 'format',
    title: 'A JSON checkout request is accepted, as JSON writers write it',
    description:
      "A checkout request sent as JSON is accepted and answered, as JSON writers write it: Content-Type application/json with or without a charset in any case (charset=UTF-8 is how the real service's own guides send it); members in any order; a member null or left out (Json.NET and Jackson write an unset member as null); a member the description does not name. In traffic, a 4xx or 5xx answer to a well-formed JSON set-up that breaks no must rule is a violation of the service (such a refusal was filed under checkout.return-url.length before this rule existed); the rule is never passed on JSON set-ups that were all refused.",
    faces: both,
    formats: 'json',
    writes: true,
    evidence: {
      what: 'an answer to a POST checkout whose JSON body could be read and breaks no must rule',
      kinds: POST_CHECKOUT,
      response: (f) =>
        f.kind === 'POST checkout' && f.requestDocument === 'json' && f.requestSound && f.status !== undefined,
    },
  },
  {
    id: 'http.no-server-error',
    severity: 'must',
    seed: '§7',
    area: 'http',
    title: 'No 5xx answers',
    description:
      'No request, valid or not, is answered with a 5xx status: the suite sends set-ups, reads, uploads, a GET of a checkout before its first set-up and the other methods of observe.methods; the proxy flags every 5xx it sees.',
    faces: both,
    formats: 'none',
    writes: false,
    evidence: {
      what: 'an answer to any request',
      kinds: ANY,
      response: (f) => f.status !== undefined,
    },
  },
] as const satisfies readonly RuleFacts[];
