import { describe, expect, it } from 'vitest';
import { readDocument } from '../../src/validate/document.js';
import { RecentTexts } from '../../src/validate/recent-texts.js';

describe('values of texts that come again', () => {
  it("keeps a text's value once the text comes again, and each text to its own value", () => {
    const recent = new RecentTexts<string>(100);
    let worked = 0;
    const work = (text: string) => {
      worked += 1;
      return text.toUpperCase();
    };
    // Fresh strings of equal content, as each exchange brings its own.
    expect(recent.get(Buffer.from('abc').toString(), work)).toBe('ABC');
    expect(recent.get(Buffer.from('abc').toString(), work)).toBe('ABC');
    expect(worked).toBe(2);
    expect(recent.get('abc', work)).toBe('ABC');
    expect(worked).toBe(2);
    // More texts than are kept: every answer is the one of its own text.
    for (let round = 0; round < 3; round += 1)
      for (let i = 0; i < 700; i += 1) expect(recent.get(`text ${i}`, work)).toBe(`TEXT ${i}`);
  });

  it('never keeps texts longer than it was told', () => {
    const recent = new RecentTexts<number>(4);
    let worked = 0;
    for (let i = 0; i < 3; i += 1) recent.get('longer', () => ++worked);
    expect(worked).toBe(3);
  });

  it('gives a body read again the same reading, refusals included', () => {
    const xml = '<Checkout><Amount>1</Amount></Checkout>';
    // Read the first time it comes, kept from the second on.
    const first = readDocument(xml, 'xml');
    const second = readDocument(Buffer.from(xml).toString(), 'xml');
    expect(second).toEqual(first);
    expect(readDocument(Buffer.from(xml).toString(), 'xml')).toBe(second);
    const broken = readDocument('{"a":1,"a":2}', 'json');
    expect(broken.ok).toBe(false);
    expect(readDocument('{"a":1,"a":2}', 'json')).toEqual(broken);
    expect(readDocument('{"a":1}', 'xml').ok).toBe(false);
  });
});

describe('texts alike but for a few characters', () => {
  it('are told apart, each to its own value, however many share their length and most characters', () => {
    const recent = new RecentTexts<string>(10_000);
    const body = (code: string) => `{"paymentUrl":"https://pay.example.test/${code}/start","status":"Open"}`;
    const codes = Array.from({ length: 40 }, (_, index) => `C${String(index).padStart(4, '0')}`);
    for (let round = 0; round < 3; round += 1)
      for (const code of codes) expect(recent.get(body(code), (text) => text.slice(40, 45))).toBe(code);
    const long = (code: string) => `${'x'.repeat(5000)}${code}${'y'.repeat(5000)}`;
    for (let round = 0; round < 3; round += 1)
      for (const code of codes) expect(recent.get(long(code), (text) => text.slice(5000, 5005))).toBe(code);
  });

  it('that come again are worked out once more only', () => {
    const recent = new RecentTexts<number>(1000);
    let worked = 0;
    const text = (index: number) => `same length ${String(index).padStart(3, '0')}`;
    for (let round = 0; round < 5; round += 1) for (let i = 0; i < 3; i += 1) recent.get(text(i), () => ++worked);
    // Seen once, then worked out and kept: twice each.
    expect(worked).toBe(6);
  });
});
