import { escapeXml } from '../contract/xml-writer.js';
import { XSI_NAMESPACE } from '../validate/xml.js';
import { OTHER_ADDRESS, returnUrlOfLength } from './checkout-request.js';
import type { ProbeRun } from './probe-run.js';

// XML set-ups in the other shapes real writers give them: members in another order (Billing
// before ReturnUrl; the address fields A to Z, as DataContractSerializer writes every member), and
// encodings other than UTF-8 that a declaration names (UTF-16 behind a byte order mark, as .NET's
// StringWriter makes it; ISO-8859-1, as PHP's DOMDocument does). Each must be accepted and echoed
// (the core judges checkout.echo on the answer).

const FIELDS: [string, string][] = [
  ['name', 'Name'],
  ['line1', 'Line1'],
  ['postCode', 'PostCode'],
  ['city', 'City'],
  ['country', 'Country'],
];

interface Shape {
  billingFirst: boolean;
  alphabetical: boolean;
  declaration: string;
}

function shapedXml(returnUrl: string, address: Record<string, string>, shape: Shape): string {
  const fields = shape.alphabetical ? [...FIELDS].sort((a, b) => a[1].localeCompare(b[1])) : FIELDS;
  const lines = fields
    .filter(([field]) => address[field] !== undefined)
    .map(([field, tag]) => `      <${tag}>${escapeXml(address[field] as string)}</${tag}>`);
  const billing = `  <Billing>\n    <Address>\n${lines.join('\n')}\n    </Address>\n  </Billing>`;
  const url = `  <ReturnUrl>${escapeXml(returnUrl)}</ReturnUrl>`;
  const members = shape.billingFirst ? [billing, url] : [url, billing];
  return `${shape.declaration}\n<Checkout xmlns:i="${XSI_NAMESPACE}">\n${members.join('\n')}\n</Checkout>`;
}

interface ShapeProbe {
  what: string;
  shape: Shape;
  contentType: string;
  bytes: (text: string) => Buffer;
}

const PLAIN = '<?xml version="1.0"?>';
const utf8 = (text: string) => Buffer.from(text);

const PROBES: ShapeProbe[] = [
  {
    what: 'an XML set-up with Billing before ReturnUrl',
    shape: { billingFirst: true, alphabetical: false, declaration: PLAIN },
    contentType: 'application/xml',
    bytes: utf8,
  },
  {
    what: 'an XML set-up whose members are in A-to-Z order, as DataContractSerializer writes them',
    shape: { billingFirst: true, alphabetical: true, declaration: PLAIN },
    contentType: 'application/xml',
    bytes: utf8,
  },
  {
    what: 'an XML set-up in UTF-16 with a byte order mark and encoding="utf-16"',
    shape: { billingFirst: false, alphabetical: false, declaration: '<?xml version="1.0" encoding="utf-16"?>' },
    contentType: 'application/xml; charset=utf-16',
    bytes: (text) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
  },
  {
    what: 'an XML set-up in ISO-8859-1 with encoding="ISO-8859-1"',
    shape: { billingFirst: false, alphabetical: false, declaration: '<?xml version="1.0" encoding="ISO-8859-1"?>' },
    contentType: 'application/xml; charset=ISO-8859-1',
    bytes: (text) => Buffer.from(text, 'latin1'),
  },
];

export async function probeXmlShapes(run: ProbeRun, id: string): Promise<void> {
  for (const [index, probe] of PROBES.entries()) {
    const text = shapedXml(returnUrlOfLength(80, `${id}-xml-shape${index}`), OTHER_ADDRESS, probe.shape);
    await run.probe(
      {
        method: 'POST',
        url: run.config.checkoutUrl,
        headers: { accept: 'application/xml', 'content-type': probe.contentType },
        body: probe.bytes(text),
      },
      { format: 'xml', expect: { rule: 'format.xml-request', answer: 'accepted', what: probe.what } },
    );
  }
}
