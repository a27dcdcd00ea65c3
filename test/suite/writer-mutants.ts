import type { OutgoingAnswer } from '../../src/reference/dialect.js';
import { type Mutant, ok, onCheckout, type Rewrite } from './mutant-helpers.js';

// Services that fail requests the suite once never made: the spellings real writers give a set-up
// (Json.NET's and Jackson's nulls, the charset of the real service's own guides, text/xml, lxml's
// single-quoted declaration, DataContract's nil Billing, an address sent back with its Email,
// character references), a GET before the first set-up, the methods the interface does not name,
// a ReturnUrl NFC makes shorter, a camera's JPEG. Each is written as the stack it models makes the
// mistake, and is caught by the probe of its class alone.

const between = (n: number) => n >= 5 && n <= 512;

/** An answer turned into a 500 with the stack's error body, in the answer's format. */
function failed(answer: OutgoingAnswer, message: string): OutgoingAnswer {
  const body =
    answer.format === 'json'
      ? JSON.stringify({ message })
      : `<?xml version="1.0"?>\n<Error>\n  <Message>${message}</Message>\n</Error>`;
  return { ...answer, status: 500, body };
}

/**
 * ASP.NET under nl-NL: the GET handler reads `checkout.Billing.Address.Name` to format the answer,
 * and a checkout never set up has no Billing yet: a NullReferenceException, answered 500.
 */
function nullBillingBeforeSetUp(): Rewrite {
  const setUp = new Set<string>();
  return (answer) => {
    if (answer.endpoint !== 'checkout' || !ok(answer)) return answer;
    if (answer.method === 'POST') setUp.add(answer.path);
    else if (answer.method === 'GET' && !setUp.has(answer.path))
      return failed(answer, 'Object reference not set to an instance of an object (Billing.Address)');
    return answer;
  };
}

/** Express: `app.all('/v2/checkout/:code', ...)` parses a body of every method: OPTIONS and DELETE send none. */
const expressAllMethods: Rewrite = (answer) =>
  answer.endpoint === 'checkout' && ['OPTIONS', 'DELETE', 'PUT', 'HEAD'].includes(answer.method)
    ? failed(answer, 'SyntaxError: Unexpected end of JSON input')
    : answer;

/** Flask: `@app.route('/v2/files/<code>', methods=['GET', 'POST'])` reads request.files['file'] on GET too. */
const flaskGetUpload: Rewrite = (answer) =>
  answer.endpoint === 'upload' && answer.method === 'GET' ? failed(answer, "KeyError: 'file'") : answer;

const text = (body: Buffer) => body.toString('utf8');

/** A JFIF-only signature table (FF D8 FF E0): an Exif JPEG is not known, and named by its fallback. */
const jfifOnlyTable = ({ kind, head }: { kind: 'PDF' | 'PNG' | 'JPEG'; head: Buffer }) =>
  kind === 'JPEG' && head[3] !== 0xe0 ? 'BIN' : kind;

/** An XML reader of text: element text between tags, taken as it stands (no references decoded). */
function regexpReader(model: Record<string, unknown>, xml: string): Record<string, unknown> {
  const raw = /<Name>([^<]*)<\/Name>/.exec(xml)?.[1];
  if (raw === undefined || !raw.includes('&#')) return model;
  const billing = model.billing as { address?: Record<string, unknown> } | undefined;
  return { ...model, billing: { ...billing, address: { ...billing?.address, name: raw } } };
}

export const WRITER_MUTANTS: Mutant[] = [
  {
    name: 'ASP.NET under nl-NL: GET of a checkout before its first set-up throws on its null Billing (500)',
    dialect: { rewrite: nullBillingBeforeSetUp() },
    fails: ['http.no-server-error'],
  },
  {
    // HEAD, OPTIONS, PUT and DELETE are not the interface in traffic: the suite alone sends them.
    name: 'Express with app.all on the checkout route: OPTIONS, DELETE and the other methods answered 500',
    dialect: { rewrite: expressAllMethods },
    fails: ['http.no-server-error'],
    traffic: [],
  },
  {
    name: "Flask: GET on an upload URL reads request.files['file'] (500)",
    dialect: { rewrite: flaskGetUpload },
    fails: ['http.no-server-error'],
  },
  {
    name: 'Json.NET: "billing": null dereferenced (500)',
    dialect: {
      refuseCheckout: (_request, body) => (/"billing"\s*:\s*null/.test(text(body)) ? 500 : undefined),
    },
    fails: ['format.json-request', 'http.no-server-error'],
  },
  {
    name: 'Spring Boot with Jackson: "returnUrl": null read as a string (NullPointerException, 500)',
    dialect: {
      refuseCheckout: (_request, body) => (/"returnUrl"\s*:\s*null/.test(text(body)) ? 500 : undefined),
    },
    fails: ['format.json-request', 'http.no-server-error'],
  },
  {
    name: 'Express: Content-Type compared whole with "application/json" or "application/json; charset=utf-8"',
    dialect: {
      refuseCheckout: (request) => {
        const type = request.headers['content-type'] ?? '';
        return type.startsWith('application/json') &&
          !['application/json', 'application/json; charset=utf-8'].includes(type)
          ? 415
          : undefined;
      },
    },
    fails: ['format.json-request'],
    traffic: ['checkout.return-url.length', 'format.json-request'],
  },
  {
    name: 'Spring Boot with Jackson XML: consumes = "application/xml" alone, text/xml refused (415)',
    dialect: {
      refuseCheckout: (request) => (request.headers['content-type']?.startsWith('text/xml') ? 415 : undefined),
    },
    fails: ['format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.xml-request'],
  },
  {
    name: 'Laravel: XML told by the bytes <?xml version="1.0" (single-quoted declarations refused)',
    dialect: {
      refuseCheckout: (_request, body) => (/^<\?xml version='/.test(text(body)) ? 400 : undefined),
    },
    fails: ['format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.xml-request'],
  },
  {
    name: 'Laravel with SimpleXML: a nil <Billing i:nil="true"/> cast to the string "" and refused (422)',
    dialect: {
      refuseCheckout: (_request, body) => (/<Billing [^>]*:nil="true"/.test(text(body)) ? 422 : undefined),
    },
    fails: ['format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.xml-request'],
  },
  {
    name: 'Rails with action_on_unpermitted_parameters = :raise: an address sent back with its Email refused',
    dialect: {
      refuseCheckout: (_request, body) => (/"email"|<Email>/.test(text(body)) ? 400 : undefined),
    },
    fails: ['format.json-request', 'format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.json-request', 'format.xml-request'],
  },
  {
    name: 'Go with a regexp XML reader: Caf&#233; M&#xFC;ller stored as written, not as Café Müller',
    dialect: { readCheckout: regexpReader },
    fails: ['checkout.echo'],
  },
  {
    name: 'Flask with WTForms: ReturnUrl NFC-normalised before it is counted',
    dialect: { returnUrlAccepted: (v) => between(v.normalize('NFC').length) },
    fails: ['checkout.return-url.length'],
  },
  {
    name: 'Go with a JFIF-only signature table: an Exif JPEG named BIN',
    dialect: { fileTypeOf: jfifOnlyTable },
    fails: ['upload.file-type'],
  },
  {
    name: 'Flask with lxml: the nil Tax written in the xsi namespace (<xsi:Tax xsi:nil="true"/>)',
    dialect: { rewrite: onCheckout('xml', (b) => b.replace(/<Tax /, '<xsi:Tax ')) },
    fails: ['checkout.xml.root', 'checkout.xml.tax-nil'],
  },
];
