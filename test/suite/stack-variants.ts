import { escapeXml } from '../../src/contract/xml-writer.js';
import type { OutgoingAnswer } from '../../src/reference/dialect.js';
import { parseXml, type XmlElement, XSI_NAMESPACE } from '../../src/validate/xml.js';
import { type Mutant, ok, onCheckout, onResources, onUpload, rewrites, XML_DECLARATION } from './mutant-helpers.js';

// How real stacks write this interface, right and wrong: PHP writing ISO-8859-1, Spring with JAXB
// and Jackson, .NET's DataContractSerializer, Python's ElementTree, Laravel's request middleware,
// a plug-in that adds what it should not. Each faulty one is caught by the rule its class breaks
// (in the suite and, where traffic can show it, in validate and the proxy); each conformant one
// stays clean.

const between = (n: number) => n >= 5 && n <= 512;

/** What a lenient framework makes of %XX escapes before it validates a field. */
function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// PHP: DOMDocument('1.0', 'ISO-8859-1') writes the declaration, Latin-1 bytes, no indentation,
// and a character Latin-1 lacks as a character reference; the xsi prefix declared where it is
// used; header('Content-Type: text/xml; charset=ISO-8859-1'). json_encode escapes "/" and every
// character outside ASCII.

function phpXml(answer: OutgoingAnswer): OutgoingAnswer {
  const body = answer.body
    .replace(XML_DECLARATION, '<?xml version="1.0" encoding="ISO-8859-1"?>')
    .replace(/ xmlns:xsd="[^"]*" xmlns:xsi="[^"]*"/, '')
    .replace(/<Tax xsi:nil="true" \/>/, `<Tax xmlns:xsi="${XSI_NAMESPACE}" xsi:nil="true"/>`)
    .replace(/>\s*\n\s*</g, '><')
    .replace(/[\u0100-\u{10ffff}]/gu, (c) => `&#${c.codePointAt(0)};`);
  return {
    ...answer,
    encoding: 'latin1',
    headers: { ...answer.headers, 'content-type': 'text/xml; charset=ISO-8859-1' },
    body,
  };
}

function phpJson(answer: OutgoingAnswer): OutgoingAnswer {
  const body = JSON.stringify(JSON.parse(answer.body))
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return { ...answer, headers: { ...answer.headers, 'content-type': 'application/json' }, body };
}

const latin1Php = rewrites(onResources('xml', phpXml), onResources('json', phpJson));

// Spring: JAXB writes standalone="yes", four-space indents, its members in its own order (here
// alphabetical) and the nil's namespace on the element; Jackson writes compact JSON in its own
// order and a BigDecimal as 2.5E+3.

const byName = (a: XmlElement, b: XmlElement) => a.local.localeCompare(b.local);

function jaxbElement(element: XmlElement, indent: string): string {
  const nil = element.attributes.some((a) => a.namespace === XSI_NAMESPACE && a.local === 'nil');
  if (nil) return `${indent}<${element.local} xsi:nil="true" xmlns:xsi="${XSI_NAMESPACE}"/>\n`;
  if (element.children.length === 0) {
    return element.text === ''
      ? `${indent}<${element.local}/>\n`
      : `${indent}<${element.local}>${escapeXml(element.text)}</${element.local}>\n`;
  }
  const inner = [...element.children]
    .sort(byName)
    .map((child) => jaxbElement(child, `${indent}    `))
    .join('');
  return `${indent}<${element.local}>\n${inner}${indent}</${element.local}>\n`;
}

function springXml(answer: OutgoingAnswer): OutgoingAnswer {
  const parsed = parseXml(answer.body);
  if (!parsed.ok) return answer;
  const body = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${jaxbElement(parsed.root, '')}`;
  return { ...answer, headers: { ...answer.headers, 'content-type': 'application/xml;charset=UTF-8' }, body };
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

function springJson(answer: OutgoingAnswer): OutgoingAnswer {
  const body = JSON.stringify(sortedKeys(JSON.parse(answer.body))).replace(
    /"amount":(-?[0-9.]+)/,
    (_all, amount: string) => `"amount":${Number(amount).toExponential().replace('e', 'E')}`,
  );
  return { ...answer, headers: { ...answer.headers, 'content-type': 'application/json' }, body };
}

/** A checkout answer whose JSON names ReturnUrl twice: cut to 255 first, whole last. */
function returnUrlTwice(body: string): string {
  const value = JSON.parse(body) as Record<string, unknown>;
  if (typeof value.returnUrl !== 'string') return body;
  const { returnUrl, ...rest } = value;
  const cut = JSON.stringify(returnUrl.slice(0, 255));
  return `{"returnUrl":${cut},${JSON.stringify(rest).slice(1, -1)},"returnUrl":${JSON.stringify(returnUrl)}}`;
}

/** Upload answers to images in the cover slot refused: a service taking nothing but PDF. */
function coverRefusesImages(answer: OutgoingAnswer): OutgoingAnswer {
  if (answer.endpoint !== 'upload' || !ok(answer) || !/cover/.test(answer.body) || /PDF/.test(answer.body))
    return answer;
  const body =
    answer.format === 'json'
      ? '{"message":"only PDF files are taken"}'
      : `${XML_DECLARATION}\n<Error>\n  <Message>only PDF files are taken</Message>\n</Error>`;
  return { ...answer, status: 415, body };
}

const FILE_TYPE_OF_LABEL: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
};

export const STACK_MUTANTS: Mutant[] = [
  {
    name: 'Latin-1 PHP answers whose echo drops the accents (Café Müller as Cafe Muller)',
    dialect: {
      rewrite: rewrites(
        onCheckout('any', (b) => b.replace('Café', 'Cafe').replace('Müller', 'Muller')),
        latin1Php,
      ),
    },
    fails: ['checkout.echo', 'checkout.get.consistent'],
  },
  {
    name: 'a DataContract default namespace on the XML checkout root',
    dialect: {
      rewrite: onCheckout('xml', (b) =>
        b.replace('<Checkout ', '<Checkout xmlns="http://schemas.datacontract.org/2004/07/PrintApi.Models" '),
      ),
    },
    fails: ['checkout.xml.root'],
  },
  {
    name: 'an ns0: prefix on every XML checkout element (ElementTree)',
    dialect: {
      rewrite: onCheckout('xml', (b) =>
        b
          .replace(/<(\/?)([A-Z]\w*)/g, '<$1ns0:$2')
          .replace('<ns0:Checkout ', '<ns0:Checkout xmlns:ns0="urn:print-api:checkout" '),
      ),
    },
    fails: ['checkout.xml.root'],
  },
  {
    name: 'a Billing element in a namespace under a plain XML checkout root',
    dialect: { rewrite: onCheckout('xml', (b) => b.replace('<Billing>', '<Billing xmlns="urn:print-api:billing">')) },
    fails: ['checkout.xml.root'],
  },
  {
    name: 'a default namespace on the XML upload root',
    dialect: { rewrite: onUpload('xml', (b) => b.replace(/<UploadResult\b/, '<UploadResult xmlns="urn:print-api"')) },
    fails: ['upload.xml.root'],
  },
  {
    name: 'a second Tax, 0.00, after the nil one (a plug-in adding its own)',
    dialect: {
      rewrite: onCheckout('xml', (b) => b.replace(/(<Tax [^>]*\/>)/, '$1\n  <Tax>0.00</Tax>')),
    },
    fails: ['checkout.xml.tax-nil'],
  },
  {
    name: 'JSON answers naming returnUrl twice, cut to 255 first',
    dialect: { rewrite: onCheckout('json', returnUrlTwice) },
    fails: ['format.well-formed'],
  },
  {
    name: 'ReturnUrl trimmed before it is counted (TrimStrings before max:512)',
    dialect: { returnUrlAccepted: (v) => between(v.trim().length) },
    fails: ['checkout.return-url.length'],
  },
  {
    name: 'ReturnUrl percent-decoded before it is counted',
    dialect: { returnUrlAccepted: (v) => between(percentDecoded(v).length) },
    fails: ['checkout.return-url.length'],
  },
  {
    name: 'a PaymentUrl with an empty host (http:///v2/payments/…)',
    dialect: {
      rewrite: onCheckout('any', (b) => b.replace(/http:\/\/[^/]+\/v2\/payments\//, 'http:///v2/payments/')),
    },
    fails: ['checkout.payment-url'],
  },
  {
    name: 'a PaymentUrl ending in the line end of the config value it was read from',
    dialect: {
      rewrite: onCheckout('any', (b, answer) =>
        answer.format === 'json' ? b.replace(/(\/start)"/, '$1\\n"') : b.replace('/start</', '/start\n</'),
      ),
    },
    fails: ['checkout.payment-url'],
  },
  {
    name: "FileType copied from the request's Content-Type",
    dialect: {
      fileTypeOf: ({ kind, declaredType }) => FILE_TYPE_OF_LABEL[declaredType ?? ''] ?? kind,
    },
    fails: ['upload.file-type'],
  },
  {
    name: "a multipart form's first part taken for its file",
    dialect: { multipartFirstPartIsFile: true },
    fails: ['upload.multipart'],
  },
  {
    // The GET after it is compared with this set-up, not with the one before, and answers it well.
    name: 'an accepted second set-up whose answer does not parse',
    dialect: {
      rewrite: onCheckout('any', (b) => (b.includes('Müller') ? b.slice(0, -12) : b), 'POST'),
    },
    fails: ['format.well-formed'],
  },
  {
    name: 'images refused by the cover slot',
    dialect: { rewrite: coverRefusesImages },
    fails: ['upload.raw', 'upload.multipart'],
  },
];

export const STACK_DIALECTS: Mutant[] = [
  {
    name: 'a Latin-1 PHP dialect: ISO-8859-1 XML as text/xml; charset=ISO-8859-1, escaped JSON, 200 on set-up',
    dialect: { setUpStatus: 200, rewrite: latin1Php },
    fails: [],
  },
  {
    name: 'a Spring dialect: JAXB standalone="yes", four-space indents, its own order, 2.5E+3 amounts in JSON',
    dialect: { rewrite: rewrites(onResources('xml', springXml), onResources('json', springJson)) },
    fails: [],
  },
  {
    name: "a book service whose items' content takes a PDF only",
    dialect: { contentKinds: ['PDF'] },
    fails: [],
  },
  {
    name: "a book service whose items' content takes a PDF only, given its content slot alone",
    dialect: { contentKinds: ['PDF'] },
    slots: 'content-only',
    fails: [],
  },
];
