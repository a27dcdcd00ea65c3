import { type OutgoingAnswer, UPLOAD_TYPES } from '../../src/reference/dialect.js';
import { HttpError } from '../../src/reference/http-error.js';
import { encodeWindows1252 } from '../../src/validate/eight-bit.js';
import { type Mutant, onCheckout, onResources, XML_DECLARATION } from './mutant-helpers.js';

// Faults of real stacks on what real shops send: address values (an emoji in a utf8mb3 column, a
// post code taken for a number, addslashes, a Latin-1 writer, a blank post code refused),
// ReturnUrls (punycode, a strict URI parser, a private-host check), XML spellings a text reader
// gets wrong, framing and caching, and file heads a magic table does not know. Each is caught by
// the rule its class breaks; the two conformant dialects (Phoenix gzipping larger answers,
// Quarkus writing UTF-16 big-endian) stay clean.

type Model = Record<string, unknown>;

/** The model with every string of its ReturnUrl and address passed through `change`. */
function mapValues(model: Model, change: (value: string, field: string) => string): Model {
  const out: Model = { ...model };
  if (typeof out.returnUrl === 'string') out.returnUrl = change(out.returnUrl, 'returnUrl');
  const billing = out.billing as { address?: Record<string, unknown> } | null | undefined;
  if (billing && typeof billing === 'object' && billing.address && typeof billing.address === 'object') {
    const address = Object.fromEntries(
      Object.entries(billing.address).map(([field, value]) => [
        field,
        typeof value === 'string' ? change(value, field) : value,
      ]),
    );
    out.billing = { ...billing, address };
  }
  return out;
}

const addressOf = (model: Model) => (model.billing as { address?: Record<string, unknown> } | null)?.address ?? {};

const ASTRAL = /[\u{10000}-\u{10ffff}]/u;

/** What windows-1252 writes at 0x80–0x9F, read back as the C1 controls a Latin-1 reader sees. */
function asLatin1(value: string): string {
  return value.replace(/[\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u2122]/g, (c) => {
    const byte = encodeWindows1252(c)?.[0];
    return byte === undefined ? c : String.fromCharCode(byte);
  });
}

const unescapeXml = (text: string) =>
  text
    .replace(/&gt;/g, '>')
    .replace(/&lt;/g, '<')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** A Latin-1 XML writer (PHP's utf8_decode, a Latin-1 JAXB marshaller) that writes "?" for what Latin-1 lacks. */
function latin1QuestionMarks(answer: OutgoingAnswer): OutgoingAnswer {
  return {
    ...answer,
    encoding: 'latin1',
    headers: { ...answer.headers, 'content-type': 'text/xml; charset=ISO-8859-1' },
    body: answer.body
      .replace(XML_DECLARATION, '<?xml version="1.0" encoding="ISO-8859-1"?>')
      .replace(/[\u0100-\u{10ffff}]/gu, '?'),
  };
}

/**
 * A writer that encodes windows-1252 but labels it ISO-8859-1 (PHP's mb_convert_encoding to
 * CP1252 under an ISO-8859-1 header): `€` goes out as byte 0x80, which ISO-8859-1 reads as a C1
 * control. Node 22's TextDecoder read it as `€` and let this pass.
 */
function windows1252LabelledLatin1(answer: OutgoingAnswer): OutgoingAnswer {
  return {
    ...answer,
    encoding: 'latin1',
    headers: { ...answer.headers, 'content-type': 'text/xml; charset=ISO-8859-1' },
    body: answer.body
      .replace(XML_DECLARATION, '<?xml version="1.0" encoding="ISO-8859-1"?>')
      .replace(/[\u0100-\u{10ffff}]/gu, (c) => {
        // Its windows-1252 byte, written as the Latin-1 character of the same value.
        const byte = encodeWindows1252(c)?.[0];
        return byte === undefined ? `&#${c.codePointAt(0)};` : String.fromCharCode(byte);
      }),
  };
}

const HTML_500 =
  '<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>';

export const REAL_STACK_MUTANTS: Mutant[] = [
  {
    name: 'a ReturnUrl with an internationalised host stored as punycode (echoed https://xn--bcher-kva…)',
    dialect: {
      readCheckout: (model) =>
        mapValues(model, (value, field) =>
          field === 'returnUrl' && /^https?:\/\/[^/]*[^ -~]/.test(value) ? new URL(value).href : value,
        ),
    },
    fails: ['checkout.echo'],
  },
  {
    name: 'a ReturnUrl with a PHP array query refused by a strict URI parser (java.net.URI)',
    dialect: {
      readCheckout: (model) => {
        if (typeof model.returnUrl === 'string' && /[[\]]/.test(model.returnUrl))
          throw new HttpError(400, 'Illegal character in query');
        return model;
      },
    },
    fails: ['format.json-request', 'format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.json-request', 'format.xml-request'],
  },
  {
    name: 'a ReturnUrl on localhost refused as a private host',
    dialect: {
      readCheckout: (model) => {
        if (typeof model.returnUrl === 'string' && /^https?:\/\/(localhost|127\.)/.test(model.returnUrl))
          throw new HttpError(400, 'returnUrl must not point to a private host');
        return model;
      },
    },
    fails: ['format.json-request', 'format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.json-request', 'format.xml-request'],
  },
  {
    name: 'an emoji in an address answered 500 (a MySQL utf8mb3 column)',
    dialect: {
      readCheckout: (model) => {
        if (Object.values(addressOf(model)).some((value) => typeof value === 'string' && ASTRAL.test(value)))
          throw new Error("Incorrect string value: '\\xF0\\x9F\\x8C\\xB7' for column 'name'");
        return model;
      },
    },
    fails: ['http.no-server-error', 'format.json-request', 'format.xml-request'],
  },
  {
    name: 'a PostCode of digits answered as a JSON number (JSON_NUMERIC_CHECK)',
    dialect: {
      rewrite: onCheckout('json', (b) =>
        b.replace(/"postCode":\s*"(\d+)"/, (_all, code: string) => `"postCode": ${Number(code)}`),
      ),
    },
    fails: ['checkout.response.schema', 'checkout.echo'],
  },
  {
    name: 'a PostCode with a leading zero stored as a number (01067 answered 1067)',
    dialect: {
      readCheckout: (model) =>
        mapValues(model, (value, field) =>
          field === 'postCode' && /^\d+$/.test(value) ? String(Number(value)) : value,
        ),
    },
    fails: ['checkout.echo'],
  },
  {
    name: "an apostrophe stored as \\' (addslashes)",
    dialect: { readCheckout: (model) => mapValues(model, (value) => value.replace(/'/g, "\\'")) },
    fails: ['checkout.echo'],
  },
  {
    name: 'a Latin-1 XML writer answering "?" for Łódź',
    dialect: { rewrite: onResources('xml', latin1QuestionMarks) },
    fails: ['checkout.echo'],
  },
  {
    name: 'windows-1252 answers labelled ISO-8859-1 (€ written as byte 0x80)',
    dialect: { rewrite: onResources('xml', windows1252LabelledLatin1) },
    fails: ['checkout.echo'],
  },
  {
    name: 'an empty PostCode refused ("This field may not be blank.", Django REST framework)',
    dialect: {
      readCheckout: (model) => {
        if (addressOf(model).postCode === '') throw new HttpError(400, 'postCode: This field may not be blank.');
        return model;
      },
    },
    fails: ['format.json-request', 'format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.json-request', 'format.xml-request'],
  },
  {
    name: 'an XML reader that keeps &apos; as written (htmlspecialchars_decode without ENT_QUOTES)',
    dialect: {
      readCheckout: (model, text) =>
        text.includes('&apos;') ? mapValues(model, (v) => v.replace(/'/g, '&apos;')) : model,
    },
    fails: ['checkout.echo'],
  },
  {
    name: 'an XML reader that drops a CDATA section',
    dialect: {
      readCheckout: (model, text) => {
        const tag = /<(\w+)><!\[CDATA\[/.exec(text)?.[1];
        if (!tag) return model;
        const field = tag.charAt(0).toLowerCase() + tag.slice(1);
        return mapValues(model, (value, name) => (name === field ? '' : value));
      },
    },
    fails: ['checkout.echo'],
  },
  {
    name: 'UTF-16 big-endian XML set-ups refused',
    dialect: { refuseCheckout: (_request, body) => (body[0] === 0xfe && body[1] === 0xff ? 400 : undefined) },
    fails: ['format.xml-request'],
    traffic: ['checkout.return-url.length', 'format.xml-request'],
  },
  {
    name: 'windows-1252 XML set-ups read as Latin-1 (curly quotes as C1 controls)',
    dialect: { readCheckout: (model) => mapValues(model, asLatin1) },
    fails: ['checkout.echo'],
  },
  {
    name: 'an XML reader that knows only the root’s xsi declaration (a nil ReturnUrl declaring its own read as empty)',
    dialect: {
      readCheckout: (model, text) => (/<ReturnUrl\b[^>]*xmlns:xsi=/.test(text) ? { ...model, returnUrl: '' } : model),
    },
    fails: ['format.xml-request'],
  },
  {
    name: 'an XML writer that wraps values holding ">" in CDATA without splitting "]]>"',
    dialect: {
      rewrite: onCheckout('xml', (b) =>
        b.replace(
          /<(Name|Line1|City)>([^<]*\]\]&gt;[^<]*)<\/\1>/g,
          (_all, tag: string, value: string) => `<${tag}><![CDATA[${unescapeXml(value)}]]></${tag}>`,
        ),
      ),
    },
    fails: ['format.well-formed'],
  },
  {
    name: 'an XML writer that writes characters outside the BMP as surrogate character references',
    dialect: {
      rewrite: onCheckout('xml', (b) =>
        b.replace(/[\u{10000}-\u{10ffff}]/gu, (c) => `&#${c.charCodeAt(0)};&#${c.charCodeAt(1)};`),
      ),
    },
    fails: ['format.well-formed'],
  },
  {
    name: 'a set-up with a document type declaration answered with an HTML 500',
    dialect: {
      rewrite: (a) =>
        a.endpoint === 'checkout' && a.status === 400 && a.body.includes('DOCTYPE')
          ? { ...a, status: 500, headers: { 'content-type': 'text/html; charset=utf-8' }, body: HTML_500 }
          : a,
    },
    fails: ['http.no-server-error', 'format.xml'],
  },
  {
    name: 'a set-up sent chunked refused with 411 Length Required',
    dialect: {
      refuseCheckout: (request) =>
        request.headers['content-length'] === undefined && request.headers['transfer-encoding'] ? 411 : undefined,
    },
    fails: ['format.json-request', 'format.xml-request'],
    // A 411 refuses the framing, not the document: traffic files it under no rule.
    traffic: [],
  },
  {
    name: 'a set-up behind Expect: 100-continue answered 417',
    dialect: { refuseCheckout: (request) => (request.headers.expect ? 417 : undefined) },
    fails: ['format.json-request', 'format.xml-request'],
    traffic: [],
  },
  {
    name: 'an empty set-up body answered 500',
    dialect: {
      refuseCheckout: (_request, body) => (body.length === 0 ? 500 : undefined),
      rewrite: (a) => (a.status === 500 ? { ...a, body: a.format === 'json' ? '{"error":"internal"}' : a.body } : a),
    },
    fails: ['http.no-server-error'],
  },
  {
    name: 'set-ups answered from a cache keyed by their body (A, B, A: the third never stored)',
    dialect: { cachesSetUpsByBody: true },
    fails: ['checkout.get.consistent'],
  },
  {
    name: 'an Amount formatted by Accept-Language (12,50 for de-DE)',
    dialect: {
      rewrite: onCheckout('any', (b, answer) =>
        /^de\b/i.test(answer.acceptLanguage ?? '')
          ? b
              .replace(/"amount":\s*(\d+)\.(\d+)/, '"amount": "$1,$2"')
              .replace(/<Amount>(\d+)\.(\d+)<\/Amount>/, '<Amount>$1,$2</Amount>')
          : b,
      ),
    },
    fails: ['checkout.response.schema'],
  },
  {
    name: 'a PDF 2.0 refused (a magic table that knows %PDF-1. alone)',
    dialect: { refuseFile: (head) => head.toString('latin1', 0, 7) === '%PDF-2.' },
    fails: ['upload.raw'],
  },
  {
    name: 'a JPEG whose first segment is APP13 refused (a magic table that knows FF D8 FF E0 and E1)',
    dialect: { refuseFile: (head) => head[0] === 0xff && head[1] === 0xd8 && head[3] === 0xed },
    fails: ['upload.raw'],
  },
  {
    name: 'a JPEG sent as image/jpg accepted',
    dialect: { uploadTypes: [...UPLOAD_TYPES, 'image/jpg'] },
    fails: ['upload.content-type'],
  },
  {
    name: 'a form whose file part names no type accepted (its type guessed from the file name)',
    dialect: {
      multipartTypeOf: (declared, fileName) =>
        declared === 'text/plain' && /\.pdf$/i.test(fileName ?? '') ? 'application/pdf' : declared,
    },
    fails: ['upload.content-type'],
  },
];

/** Phoenix on Cowboy: answers of 300 bytes and more gzipped when the request accepts gzip. */
function cowboyCompress(answer: OutgoingAnswer): OutgoingAnswer {
  if (answer.endpoint !== 'checkout' && answer.endpoint !== 'upload') return answer;
  const accepts = /\bgzip\b/.test(answer.acceptEncoding ?? '');
  if (!accepts || Buffer.byteLength(answer.body) < 300) return answer;
  return { ...answer, coding: 'gzip', headers: { ...answer.headers, vary: 'accept-encoding' } };
}

/** Quarkus with JAXB: XML in UTF-16 big-endian behind its byte order mark, declared so. */
function quarkusUtf16(answer: OutgoingAnswer): OutgoingAnswer {
  return {
    ...answer,
    encoding: 'utf16be',
    headers: { ...answer.headers, 'content-type': 'application/xml;charset=UTF-16' },
    body: answer.body.replace(XML_DECLARATION, '<?xml version="1.0" encoding="UTF-16" standalone="yes"?>'),
  };
}

export const REAL_STACK_DIALECTS: Mutant[] = [
  {
    name: 'a Phoenix dialect: answers of 300 bytes and more gzipped (Cowboy), 200 on set-up, compact JSON',
    dialect: { setUpStatus: 200, prettyJson: false, rewrite: cowboyCompress },
    fails: [],
  },
  {
    name: 'a Quarkus dialect: JAXB XML in UTF-16 big-endian with a byte order mark',
    dialect: { rewrite: onResources('xml', quarkusUtf16) },
    fails: [],
  },
];
