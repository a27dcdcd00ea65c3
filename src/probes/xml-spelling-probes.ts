import { ruleById } from '../contract/rules.js';
import { writeResourceXml } from '../contract/xml-writer.js';
import { XSI_NAMESPACE } from '../validate/xml.js';
import { returnUrlOfLength, SAMPLE_ADDRESS } from './checkout-request.js';
import type { ProbeRun } from './probe-run.js';

// XML set-ups spelt as XML writers spell them, each of which a reader that treats XML as text
// gets wrong: an apostrophe written `&apos;`, a value in a CDATA section, UTF-16 big-endian behind
// its byte order mark (Java's and Quarkus's writers), windows-1252 (curly quotes a Latin-1 reader
// takes for C1 controls), the XMLSchema-instance namespace declared on the nil element itself
// (JAXB), `]]>` in a value (a writer that wraps values in CDATA must split it). Each must be
// accepted and echoed (the core judges the echo and that the answer parses). A document type
// declaration may be refused, but never answered 5xx, and its entity never reaches the answer.

/** The sample set-up with its address fields written as raw XML (already escaped, or CDATA). */
function xmlWith(returnUrl: string, raw: Partial<Record<keyof typeof SAMPLE_ADDRESS, string>>): string {
  let xml = writeResourceXml('checkout-request', { returnUrl, billing: { address: SAMPLE_ADDRESS } });
  const tags = { name: 'Name', line1: 'Line1', postCode: 'PostCode', city: 'City', country: 'Country' } as const;
  for (const [field, text] of Object.entries(raw)) {
    const tag = tags[field as keyof typeof tags];
    xml = xml.replace(new RegExp(`<${tag}>[^<]*</${tag}>`), `<${tag}>${text}</${tag}>`);
  }
  return xml;
}

interface SpellingProbe {
  what: string;
  contentType: string;
  body: (returnUrl: string) => Buffer;
}

const utf8 = (text: string) => Buffer.from(text);

/** windows-1252 bytes of text whose characters it has (the probe writes only those). */
function windows1252(text: string): Buffer {
  const high: Record<string, number> = { '’': 0x92, '“': 0x93, '”': 0x94, '€': 0x80 };
  return Buffer.from(Array.from(text, (c) => high[c] ?? (c.codePointAt(0) as number)));
}

const SPELLINGS: SpellingProbe[] = [
  {
    what: "an XML set-up whose City is written &apos;s-Hertogenbosch (echoed 's-Hertogenbosch)",
    contentType: 'application/xml',
    body: (url) => utf8(xmlWith(url, { city: '&apos;s-Hertogenbosch', postCode: '5211 KH' })),
  },
  {
    what: 'an XML set-up whose Name is a CDATA section (<![CDATA[Smith & Söhne <Boeken>]]>)',
    contentType: 'application/xml',
    body: (url) => utf8(xmlWith(url, { name: '<![CDATA[Smith & Söhne <Boeken>]]>' })),
  },
  {
    what: 'an XML set-up in UTF-16 big-endian with a byte order mark and encoding="UTF-16"',
    contentType: 'application/xml; charset=UTF-16',
    body: (url) => {
      const text = xmlWith(url, { name: 'Zoë Bakker' }).replace(
        '<?xml version="1.0"?>',
        '<?xml version="1.0" encoding="UTF-16"?>',
      );
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    },
  },
  {
    what: 'an XML set-up in windows-1252 with curly quotes and € (’s-Hertogenbosch, “Boek€n”)',
    contentType: 'application/xml; charset=windows-1252',
    body: (url) =>
      windows1252(
        xmlWith(url, { name: 'Boekhandel “Boek€n”', city: '’s-Hertogenbosch', postCode: '5211 KH' }).replace(
          '<?xml version="1.0"?>',
          '<?xml version="1.0" encoding="windows-1252"?>',
        ),
      ),
  },
  {
    what: 'an XML set-up whose nil ReturnUrl declares the XMLSchema-instance namespace on itself, as JAXB writes it',
    contentType: 'application/xml',
    body: () =>
      utf8(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Checkout>\n  <ReturnUrl xsi:nil="true" xmlns:xsi="${XSI_NAMESPACE}"/>\n  <Billing>\n    <Address>\n      <Name>Print API</Name>\n      <Line1>Osloweg 75</Line1>\n      <PostCode>9700 GE</PostCode>\n      <City>Groningen</City>\n      <Country>NL</Country>\n    </Address>\n  </Billing>\n</Checkout>\n`,
      ),
  },
  {
    what: 'an XML set-up whose Line1 holds "]]>" (Dock ]]&gt; 5)',
    contentType: 'application/xml',
    body: (url) => utf8(xmlWith(url, { line1: 'Dock ]]&gt; 5' })),
  },
];

/** The text an entity of the probe's document type declaration stands for: never to be answered. */
const ENTITY_TEXT = 'ENTITY-EXPANDED-BY-DTD';

export async function probeXmlSpellings(run: ProbeRun, id: string): Promise<void> {
  const url = run.config.checkoutUrl;
  for (const [index, probe] of SPELLINGS.entries()) {
    await run.probe(
      {
        method: 'POST',
        url,
        headers: { accept: 'application/xml', 'content-type': probe.contentType },
        body: probe.body(returnUrlOfLength(80, `${id}-xml-spelling${index}`)),
      },
      { format: 'xml', expect: { rule: 'format.xml-request', answer: 'accepted', what: probe.what } },
    );
  }
  // A document type declaration: refused or read without it, never 5xx (the core judges that),
  // and its entity never expanded into the answer.
  const withDtd = xmlWith(returnUrlOfLength(80, `${id}-xml-dtd`), { name: '&shop;' }).replace(
    '<?xml version="1.0"?>\n',
    `<?xml version="1.0"?>\n<!DOCTYPE Checkout [<!ENTITY shop "${ENTITY_TEXT}">]>\n`,
  );
  const exchange = await run.probe(
    { method: 'POST', url, headers: { accept: 'application/xml', 'content-type': 'application/xml' }, body: withDtd },
    { format: 'xml', refusalObserved: 'POST checkout of an XML set-up with a document type declaration refused' },
  );
  const status = exchange.response?.status;
  if (status !== undefined && status >= 200 && status < 300) {
    const expanded = exchange.response?.body?.text?.includes(ENTITY_TEXT) === true;
    const rule = 'format.xml-request';
    run.tally.expected(
      exchange,
      rule,
      'xml',
      expanded
        ? {
            rule,
            severity: ruleById(rule).severity,
            side: 'response',
            message: 'an XML set-up with a document type declaration was answered with its entity expanded (XXE)',
          }
        : undefined,
    );
  }
}
