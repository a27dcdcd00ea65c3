import { describe, expect, it } from 'vitest';
import { encodingProblem } from '../../src/validate/encoding.js';
import { decodeText, encodeTextLike } from '../../src/validate/exchange.js';

// ISO-8859-1 and windows-1252 read by their own tables on every Node.js line: Node 20's
// TextDecoder reads windows-1252 as Latin-1, Node 22 and later read ISO-8859-1 as windows-1252.

const xml = (encoding: string, bytes: number[]) =>
  Buffer.concat([
    Buffer.from(`<?xml version="1.0" encoding="${encoding}"?><Name>`, 'latin1'),
    Buffer.from(bytes),
    Buffer.from('</Name>', 'latin1'),
  ]);

describe('8-bit tables', () => {
  it('reads windows-1252 bytes 0x80–0x9F as its own characters', () => {
    const text = decodeText(xml('windows-1252', [0x80, 0x82, 0x93, 0x94, 0x8a, 0x85, 0x92]));
    expect(text).toContain('<Name>€‚“”Š…’</Name>');
    expect(decodeText(xml('cp1252', [0x80]), 'application/xml')).toContain('<Name>€</Name>');
  });

  it('reads ISO-8859-1 bytes 0x80–0x9F as the C1 controls, as libxml2, .NET and Java do', () => {
    const text = decodeText(xml('ISO-8859-1', [0x80, 0x93, 0xe9]));
    expect(text).toContain('<Name>\u0080\u0093é</Name>');
  });

  it('reads the charset of Content-Type by the same tables when no declaration names one', () => {
    const bytes = Buffer.from([0x3c, 0x41, 0x3e, 0x80, 0x3c, 0x2f, 0x41, 0x3e]);
    expect(decodeText(bytes, 'application/xml; charset=windows-1252')).toBe('<A>€</A>');
    expect(decodeText(bytes, 'application/xml; charset=iso-8859-1')).toBe('<A>\u0080</A>');
  });

  it('reads the five bytes windows-1252 leaves undefined as the C1 controls of their value', () => {
    expect(decodeText(xml('windows-1252', [0x81, 0x8d, 0x8f, 0x90, 0x9d]))).toContain('\u0081\u008d\u008f\u0090\u009d');
  });

  it('keeps one character a byte, so the core still tells the body was 8-bit and writes it back alike', () => {
    const bytes = xml('windows-1252', [0x80, 0x93]);
    const text = decodeText(bytes);
    expect(text.length).toBe(bytes.length);
    expect(encodingProblem(text, bytes.length, 'xml', 'application/xml; charset=windows-1252')).toBeUndefined();
    expect(encodeTextLike(text, bytes, text)?.equals(bytes)).toBe(true);
  });
});
