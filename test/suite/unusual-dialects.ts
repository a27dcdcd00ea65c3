import type { OutgoingAnswer } from '../../src/reference/dialect.js';
import { type Mutant, onResources, rewrites, XML_DECLARATION } from './mutant-helpers.js';

// Dialects that are unusual but conformant: each must come out clean. They write what the
// description allows and a strict client must take: another prefix for XMLSchema-instance,
// elements in another order, a byte order mark, comments, CDATA, chunked answers, an integer
// Amount, members the description does not name, UTF-16 with its byte order mark.

const unescapeXml = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** Text of these elements as CDATA sections (their entities decoded, as CDATA holds text raw). */
const asCdata = (body: string, ...names: string[]) =>
  names.reduce(
    (current, name) =>
      current.replace(
        new RegExp(`<${name}>([^<]*)</${name}>`),
        // A "]]>" in the text ends one section and opens the next, as XmlWriter.WriteCData splits it.
        (_all, text: string) =>
          `<${name}><![CDATA[${unescapeXml(text).replace(/]]>/g, ']]]]><![CDATA[>')}]]></${name}>`,
      ),
    body,
  );

function unusualXml(answer: OutgoingAnswer): OutgoingAnswer {
  let body = answer.body
    .replace(XML_DECLARATION, `\uFEFF${XML_DECLARATION}\n<!-- written in an unusual but conformant way -->`)
    .replace(/<Amount>(\d+)\.\d+<\/Amount>/, '<Amount>$1</Amount>')
    .replace(/(<Amount>[^<]*<\/Amount>)/, '$1\n  <!-- a comment among the elements -->\n  <Currency>EUR</Currency>');
  // Status moved after Billing: XmlSerializer reads elements in any order, and so must a client.
  const status = /\n {2}<Status>[^<]*<\/Status>/.exec(body)?.[0];
  if (status) body = body.replace(status, '').replace('</Checkout>', `${status.trim()}\n</Checkout>`);
  body = asCdata(body, 'PaymentUrl', 'ReturnUrl', 'FileName');
  return { ...answer, headers: { ...answer.headers, 'content-type': 'text/xml; charset=utf-8' }, body };
}

function unusualJson(answer: OutgoingAnswer): OutgoingAnswer {
  const body = answer.body.replace(/"amount": ?(\d+)\.\d+/, '"amount": $1').replace(/^\{/, '{"currency": "EUR", ');
  return { ...answer, headers: { ...answer.headers, 'content-type': 'application/json;charset=UTF-8' }, body };
}

function utf16Xml(answer: OutgoingAnswer): OutgoingAnswer {
  return {
    ...answer,
    encoding: 'utf16le',
    headers: { ...answer.headers, 'content-type': 'application/xml; charset=utf-16' },
    body: answer.body.replace(XML_DECLARATION, '<?xml version="1.0" encoding="utf-16"?>'),
  };
}

export const UNUSUAL_DIALECTS: Mutant[] = [
  {
    name: 'an unusual dialect: another xsi prefix, reordered elements, BOM, comments, CDATA, chunks, integer Amount, extra members',
    dialect: {
      xmlNilPrefix: 'instance',
      chunked: true,
      rewrite: rewrites(onResources('xml', unusualXml), onResources('json', unusualJson)),
    },
    fails: [],
  },
  {
    name: 'XML answers in UTF-16 with a byte order mark, declared and labelled so',
    dialect: { rewrite: onResources('xml', utf16Xml) },
    fails: [],
  },
];
