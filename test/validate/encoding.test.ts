import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordBody } from '../../src/http/send.js';
import { exchangeOfHarEntry } from '../../src/recording/har.js';
import { encodingProblem } from '../../src/validate/encoding.js';
import { decodeText, decodeTextOfPieces, type Exchange, encodeTextLike } from '../../src/validate/exchange.js';
import { CheckoutState, validateExchange } from '../../src/validate/index.js';
import {
  binaryBody,
  checkoutGet,
  checkoutPost,
  checkoutRequestXml,
  checkoutResponseJson,
  checkoutResponseXml,
  XML_TYPE,
} from '../helpers/exchanges.js';

const failing = (exchange: Exchange, state?: CheckoutState) =>
  validateExchange(exchange, state)
    .filter((v) => v.severity !== 'observe')
    .map((v) => `${v.rule}@${v.side}`)
    .sort();

const messages = (exchange: Exchange) => validateExchange(exchange).map((v) => v.message);

const declaring = (encoding: string, xml = checkoutResponseXml()) =>
  xml.replace(/^<\?xml version="1.0"\?>/, `<?xml version="1.0" encoding="${encoding}"?>`);

/** A GET whose answer is exactly these bytes, with this Content-Type. */
function answeredWith(bytes: Buffer, contentType: string, format: 'json' | 'xml' = 'xml'): Exchange {
  const exchange = checkoutGet(format);
  exchange.response!.headers['content-type'] = contentType;
  exchange.response!.body = binaryBody(bytes);
  return exchange;
}

const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const withEcho = (xml: string) => xml.replace(/<Name>[^<]*<\/Name>/, '<Name>Café Müller</Name>');

describe('format.well-formed: encodings as a strict parser holds them', () => {
  it('refuses a UTF-8 body whose declaration says utf-16, the .NET StringWriter slip', () => {
    const exchange = checkoutGet('xml', declaring('utf-16'));
    expect(failing(exchange)).toEqual(['format.well-formed@response']);
    expect(messages(exchange).join()).toMatch(/encoding "utf-16" but the body is UTF-8/);
    // Held as bytes, it is judged the same.
    const bytes = answeredWith(Buffer.from(declaring('utf-16')), 'application/xml');
    expect(failing(bytes)).toEqual(['format.well-formed@response']);
  });

  it('says so of a client request too', () => {
    const exchange = checkoutPost('xml', declaring('UTF-16', checkoutPost('xml').request.body!.text), undefined, 400);
    expect(failing(exchange)).toEqual(['format.well-formed@request']);
  });

  it('reads the rest of a refused body all the same, so its other faults are still found', () => {
    const exchange = checkoutGet('xml', declaring('utf-16').replace(/<Tax [^>]*\/>/, ''));
    expect(failing(exchange)).toEqual(['checkout.xml.tax-nil@response', 'format.well-formed@response']);
  });

  it('accepts UTF-16 that is UTF-16: byte order mark, declaration and charset agreeing', () => {
    const bytes = utf16le(declaring('utf-16', withEcho(checkoutResponseXml())));
    expect(failing(answeredWith(bytes, 'application/xml; charset=utf-16'))).toEqual([]);
    // As the suite and the proxy record it: text, with the size of the bytes.
    const recorded = answeredWith(bytes, 'application/xml; charset=utf-16');
    recorded.response!.body = recordBody(bytes, 'application/xml; charset=utf-16');
    expect(recorded.response!.body.text?.startsWith('\uFEFF<?xml')).toBe(true);
    expect(failing(recorded)).toEqual([]);
    // Big-endian too.
    const big = Buffer.from(bytes).swap16();
    expect(failing(answeredWith(big, 'application/xml; charset=utf-16'))).toEqual([]);
  });

  it('refuses UTF-16 bytes that a declaration or a charset calls UTF-8', () => {
    const bytes = utf16le(declaring('utf-8'));
    expect(failing(answeredWith(bytes, 'application/xml'))).toEqual(['format.well-formed@response']);
    const undeclared = utf16le(checkoutResponseXml());
    expect(failing(answeredWith(undeclared, 'application/xml; charset=utf-8'))).toEqual([
      'format.well-formed@response',
    ]);
  });

  it('never says the body is UTF-8 of UTF-16 without a byte order mark, whatever its charset names', () => {
    const xml = checkoutResponseXml().replace('?>', ' encoding="utf-16"?>');
    for (const contentType of ['application/xml; charset=utf-16', 'text/xml; charset=UTF-16LE', 'application/xml']) {
      const said = messages(answeredWith(Buffer.from(xml, 'utf16le'), contentType));
      expect(said.length, contentType).toBeGreaterThan(0);
      expect(said[0], contentType).toMatch(/UTF-16 without a byte order mark/);
      expect(said.join(), contentType).not.toMatch(/is UTF-8/);
    }
    const json = messages(
      answeredWith(Buffer.from(checkoutResponseJson(), 'utf16le'), 'application/json; charset=utf-16', 'json'),
    );
    expect(json[0]).toMatch(/UTF-16 without a byte order mark/);
  });

  it('accepts a UTF-8 byte order mark and an encoding="utf-8" declaration on XML', () => {
    expect(failing(checkoutGet('xml', `\uFEFF${checkoutResponseXml()}`))).toEqual([]);
    expect(failing(checkoutGet('xml', declaring('utf-8')))).toEqual([]);
    expect(failing(checkoutGet('xml', declaring('UTF-8')))).toEqual([]);
    expect(failing(answeredWith(Buffer.from(`\uFEFF${withEcho(declaring('utf-8'))}`), XML_TYPE))).toEqual([]);
  });

  it('refuses JSON with a byte order mark, and JSON that is not UTF-8', () => {
    const bom = checkoutGet('json', `\uFEFF${checkoutResponseJson()}`);
    expect(failing(bom)).toEqual(['format.well-formed@response']);
    expect(messages(bom).join()).toMatch(/byte order mark/);
    const latin1 = Buffer.from(checkoutResponseJson().replace('Print API', 'Café'), 'latin1');
    expect(failing(answeredWith(latin1, 'application/json', 'json'))).toContain('format.well-formed@response');
    const utf16 = answeredWith(utf16le(checkoutResponseJson()), 'application/json', 'json');
    expect(messages(utf16).join()).toMatch(/JSON is UTF-16/);
    const bomless = answeredWith(Buffer.from(checkoutResponseJson(), 'utf16le'), 'application/json', 'json');
    expect(messages(bomless).join()).toMatch(/looks like UTF-16 without a byte order mark/);
  });

  it('holds a charset in Content-Type to the bytes and to the declaration', () => {
    const utf16Charset = checkoutGet('json');
    utf16Charset.response!.headers['content-type'] = 'application/json; charset=utf-16';
    expect(failing(utf16Charset)).toEqual(['format.well-formed@response']);
    expect(messages(utf16Charset).join()).toMatch(/charset "utf-16" but the body is UTF-8 .*decodes by it/);
    const disagreeing = checkoutGet('xml', declaring('ISO-8859-1'));
    disagreeing.response!.headers['content-type'] = 'application/xml; charset=utf-8';
    expect(messages(disagreeing).join()).toMatch(/charset "utf-8" but the XML declaration says encoding "ISO-8859-1"/);
    // ASCII reads the same in Latin-1 and UTF-8: a charset naming either is right.
    const latin1Charset = checkoutGet('json');
    latin1Charset.response!.headers['content-type'] = 'application/json; charset=iso-8859-1';
    expect(failing(latin1Charset)).toEqual([]);
  });

  it('holds an 8-bit declaration to the bytes: UTF-8 é misread, Latin-1 é right', () => {
    const utf8 = checkoutGet('xml', withEcho(declaring('ISO-8859-1')));
    utf8.response!.headers['content-type'] = 'application/xml';
    expect(messages(utf8).join()).toMatch(/UTF-8 with non-ASCII characters, which ISO-8859-1 reads/);
    const latin1 = Buffer.from(withEcho(declaring('ISO-8859-1')), 'latin1');
    expect(failing(answeredWith(latin1, 'application/xml; charset=iso-8859-1'))).toEqual([]);
    // Latin-1 bytes that declare nothing are read as UTF-8, and are not.
    const undeclared = Buffer.from(withEcho(checkoutResponseXml()), 'latin1');
    expect(messages(answeredWith(undeclared, 'application/xml')).join()).toMatch(
      /bytes that are not UTF-8, and no XML declaration names another encoding/,
    );
  });

  it('takes a U+FFFD that the bytes really hold for what it is', () => {
    const text = checkoutResponseXml().replace('Print API', 'Print \uFFFD API');
    expect(failing(checkoutGet('xml', text))).toEqual([]);
  });

  it('gives no verdict on an encoding it does not know', () => {
    expect(encodingProblem(declaring('x-unknown-thing'), 1000, 'xml', 'application/xml')).toBeUndefined();
  });

  it('reads a declaration only at the start of the body, in either quotes', () => {
    const single = `<?xml version='1.0' encoding='UTF-16'?><Checkout/>`;
    expect(encodingProblem(single, single.length, 'xml', undefined)).toMatch(/encoding "UTF-16"/);
    const later = `<Checkout><Note>&lt;?xml version="1.0" encoding="utf-16"?&gt;</Note></Checkout>`;
    expect(encodingProblem(later, later.length, 'xml', undefined)).toBeUndefined();
  });
});

describe('format.well-formed on HAR entries, whose bodies are decoded text', () => {
  const entry = (text: string, size: number) =>
    exchangeOfHarEntry({
      request: { method: 'GET', url: checkoutGet('xml').request.url, headers: [{ name: 'Accept', value: XML_TYPE }] },
      response: {
        status: 200,
        headers: [{ name: 'Content-Type', value: 'application/xml; charset=utf-16' }],
        content: { size, mimeType: 'application/xml', text },
      },
    });

  it('tells UTF-16 from UTF-8 by the size the entry gives', () => {
    const xml = declaring('utf-16');
    expect(failing(entry(xml, 2 * xml.length + 2))).toEqual([]);
    expect(failing(entry(xml, Buffer.byteLength(xml)))).toEqual(['format.well-formed@response']);
  });
});

describe('an XML answer in ISO-8859-1, read as its declaration and charset say', () => {
  const latin1Declared = (xml: string) =>
    Buffer.from(xml.replace(/^<\?xml version="1.0"\?>/, '<?xml version="1.0" encoding="ISO-8859-1"?>'), 'latin1');
  const name = (xml: string) => xml.replace(/<Name>[^<]*<\/Name>/, '<Name>Café Müller</Name>');
  const LATIN1_XML = 'text/xml; charset=ISO-8859-1';

  it('decodes bytes by the declaration, else by the charset, and UTF-8 bytes as UTF-8', () => {
    const bytes = latin1Declared('<?xml version="1.0"?><Name>Café</Name>');
    expect(decodeText(bytes)).toBe('<?xml version="1.0" encoding="ISO-8859-1"?><Name>Café</Name>');
    const undeclared = Buffer.from('<Name>Müller</Name>', 'latin1');
    expect(decodeText(undeclared, 'application/xml; charset=iso-8859-1')).toBe('<Name>Müller</Name>');
    expect(decodeText(undeclared, 'application/xml')).toBe('<Name>M\uFFFDller</Name>');
    expect(decodeText(Buffer.from('<Name>Müller</Name>'), 'application/xml; charset=iso-8859-1')).toBe(
      '<Name>Müller</Name>',
    );
    // A byte order mark is kept for the core to judge.
    expect(decodeText(Buffer.from('\uFEFF{}'))).toBe('\uFEFF{}');
    // Text read one character a byte is written back one byte a character.
    const text = decodeText(bytes);
    expect(encodeTextLike(text.replace('Café', 'Cafe!'), bytes, text)).toEqual(
      Buffer.from(text.replace('Café', 'Cafe!'), 'latin1'),
    );
  });

  it('finds nothing wrong, and reads the echo and a later GET as the characters sent', () => {
    const request = name(checkoutRequestXml());
    const post = checkoutPost('xml', request);
    const answer = latin1Declared(name(checkoutResponseXml()));
    post.response!.headers['content-type'] = LATIN1_XML;
    // As the suite and the proxy record it: text decoded by the declaration, with the size of the bytes.
    post.response!.body = recordBody(answer, LATIN1_XML);
    expect(post.response!.body.text).toContain('<Name>Café Müller</Name>');
    const state = new CheckoutState();
    expect(failing(post, state)).toEqual([]);
    const get = answeredWith(answer, LATIN1_XML);
    expect(failing(get, state)).toEqual([]);
    const recordedGet = answeredWith(answer, LATIN1_XML);
    recordedGet.response!.body = recordBody(answer, LATIN1_XML);
    expect(failing(recordedGet, state)).toEqual([]);
  });

  it('takes a charset that names the encoding of a document without a declaration (RFC 7303)', () => {
    const bytes = Buffer.from(name(checkoutResponseXml()).replace('<?xml version="1.0"?>\n', ''), 'latin1');
    expect(failing(answeredWith(bytes, LATIN1_XML))).toEqual([]);
    expect(failing(answeredWith(bytes, 'text/xml'))).toEqual(['format.well-formed@response']);
    expect(failing(answeredWith(bytes, 'text/xml; charset=utf-8'))).toEqual(['format.well-formed@response']);
  });

  it('refuses 8-bit bytes that the declaration or charset calls otherwise, and JSON in Latin-1', () => {
    const bytes = latin1Declared(name(checkoutResponseXml()));
    const utf16 = Buffer.from(bytes.toString('latin1').replace('ISO-8859-1', 'utf-16'), 'latin1');
    expect(failing(answeredWith(utf16, 'application/xml'))).toEqual(['format.well-formed@response']);
    const json = Buffer.from(checkoutResponseJson().replace('Print API', 'Café'), 'latin1');
    const recorded = answeredWith(json, 'application/json; charset=iso-8859-1', 'json');
    expect(failing(recorded)).toEqual(['format.well-formed@response']);
    expect(messages(recorded).join()).toMatch(/JSON holds bytes that are not UTF-8/);
  });

  it('reads a HAR entry whose text a tool decoded from ISO-8859-1 by the size of its bytes', () => {
    const xml = name(checkoutResponseXml()).replace(
      '<?xml version="1.0"?>',
      '<?xml version="1.0" encoding="ISO-8859-1"?>',
    );
    const entry = exchangeOfHarEntry({
      request: { method: 'GET', url: checkoutGet('xml').request.url, headers: [{ name: 'Accept', value: XML_TYPE }] },
      response: {
        status: 200,
        headers: [{ name: 'Content-Type', value: LATIN1_XML }],
        content: { size: xml.length, mimeType: LATIN1_XML, text: xml },
      },
    });
    expect(entry.response?.body?.size).toBe(xml.length);
    expect(failing(entry)).toEqual([]);
  });
});

describe('text read from pieces', () => {
  // Bodies as they come: UTF-8 with characters of every length, byte order marks, 8-bit text
  // declared as such, and bytes that are not UTF-8 at all.
  const bodies = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }).map((text) => Buffer.from(text)),
    fc.string({ unit: 'binary', maxLength: 100 }).map((text) => Buffer.from(`\ufeff${text}`, 'utf16le')),
    fc
      .string({ maxLength: 100 })
      .map((text) => Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?><a>${text}é</a>`, 'latin1')),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  );

  it('is the text read from the pieces joined, wherever the pieces are cut', () => {
    fc.assert(
      fc.property(
        bodies,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom(undefined, 'text/xml; charset=iso-8859-1'),
        (bytes, cuts, type) => {
          const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const pieces = [0, ...at].map((start, index) => bytes.subarray(start, at[index] ?? bytes.length));
          expect(decodeTextOfPieces(pieces, type)).toBe(decodeText(bytes, type));
        },
      ),
      { numRuns: 500 },
    );
  });
});
