import { ANSWER_EXTRAS } from './real-service.js';
import type { SchemaName } from './schemas.js';
import { writeErrorXml, writeResourceXml } from './xml-writer.js';

// Examples of every body, for tools that send or compare them (Dredd stops without). The request
// and upload answer are the samples the real service's reference pages publish; each XML example is
// written from its JSON one by the same writer as the reference service's answers, so the two forms
// cannot drift apart.

type Model = Record<string, unknown>;

/** The checkout request of the real service's reference pages. */
export const CHECKOUT_REQUEST_EXAMPLE = {
  returnUrl: 'http://www.your.site.here.com/callback?order_id=83432183',
  billing: {
    address: { name: 'Print API', line1: 'Osloweg 75', postCode: '9700 GE', city: 'Groningen', country: 'NL' },
  },
};

/** The upload answer of the real service's reference pages. */
export const UPLOAD_RESULT_EXAMPLE = { fileName: 'cover', fileType: 'PNG' };

/** The first bytes of a PDF, as text: enough for a service to tell the type by its magic number. */
export const PDF_EXAMPLE = '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';

export const ERROR_EXAMPLE = {
  message: 'unknown checkout code',
  hints: ['Use the checkout URL given by the order.'],
};

/** A model with the members the real service adds to an answer, each set to its schema's example. */
function withExtras(file: SchemaName, model: Model): Model {
  const copy = structuredClone(model);
  for (const [path, members] of Object.entries(ANSWER_EXTRAS[file] ?? {})) {
    let target = copy;
    for (const key of path.split('/')) target = target[key] as Model;
    for (const [name, schema] of Object.entries(members))
      target[name] = (schema.examples as unknown[] | undefined)?.[0];
  }
  return copy;
}

/** The answer to the example request: echo, status Open, a payment URL under the base. */
export function checkoutAnswerExample(baseUrl: string): Model {
  return withExtras('checkout', {
    amount: 22.49,
    status: 'Open',
    paymentUrl: `${baseUrl}payments/7JcLrtk2vYmNy3wRz5dQ/start`,
    ...CHECKOUT_REQUEST_EXAMPLE,
  });
}

export const xmlExampleOf = (file: SchemaName, model: Model) => writeResourceXml(file, model);
export const errorXmlExample = () => writeErrorXml(ERROR_EXAMPLE.message, ERROR_EXAMPLE.hints);

/** The vendor extension that holds an XML body's example text on its Media Type Object. */
export const XML_EXAMPLE_KEY = 'x-xml-example';

/**
 * An XML example, kept out of `example` and `examples` on purpose. Spectral's default ruleset
 * validates an inline XML string (as `example` or an example's `value`) against the object schema
 * the XML Object names and fails every one; Specmatic reads an `externalValue` as an empty body and
 * stops loading the document. No Example Object form passes both, so the text stands in an extension
 * both ignore, and tools write XML bodies from the XML Objects (as Redoc's sampler does).
 */
export const xmlExample = (xml: string) => ({ [XML_EXAMPLE_KEY]: xml });

/** The XML example text of a Media Type Object written with xmlExample. */
export function textOfXmlExample(media: Record<string, unknown>): string {
  const text = media[XML_EXAMPLE_KEY];
  if (typeof text !== 'string') throw new Error(`no ${XML_EXAMPLE_KEY} on this media type`);
  return text;
}

/** A binary example: the type's magic bytes as a base64 data: URL, for the bytes are no JSON string. */
export const binaryExamples = (name: string, type: string, mediaType: string, magic: number[]) => ({
  [name]: {
    summary: `a ${type} file`,
    description: `The first bytes of a ${type} file (its magic number): a service tells the type by them.`,
    externalValue: `data:${mediaType};base64,${Buffer.from(magic).toString('base64')}`,
  },
});
