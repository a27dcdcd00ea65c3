import { describe, expect, it } from 'vitest';
import { readDocument } from '../../src/validate/document.js';
import { RecentTexts } from '../../src/validate/recent-texts.js';

describe('values of texts seen a moment ago', () => {
  it('works a text out once while it is recent, and each text to its own value', () => {
    const recent = new RecentTexts<string>(100);
    let worked = 0;
    const work = (text: string) => {
      worked += 1;
      return text.toUpperCase();
    };
    // Fresh strings of equal content, as each exchange brings its own.
    expect(recent.get(Buffer.from('abc').toString(), work)).toBe('ABC');
    expect(recent.get(Buffer.from('abc').toString(), work)).toBe('ABC');
    expect(worked).toBe(1);
    // Many texts sharing slots: every answer is the one of its own text.
    for (let round = 0; round < 2; round += 1)
      for (let i = 0; i < 500; i += 1) expect(recent.get(`text ${i}`, work)).toBe(`TEXT ${i}`);
  });

  it('never keeps texts longer than it was told', () => {
    const recent = new RecentTexts<number>(4);
    let worked = 0;
    for (let i = 0; i < 3; i += 1) recent.get('longer', () => ++worked);
    expect(worked).toBe(3);
  });

  it('gives a body read again the same reading, refusals included', () => {
    const xml = '<Checkout><Amount>1</Amount></Checkout>';
    expect(readDocument(xml, 'xml')).toBe(readDocument(Buffer.from(xml).toString(), 'xml'));
    const broken = readDocument('{"a":1,"a":2}', 'json');
    expect(broken.ok).toBe(false);
    expect(readDocument('{"a":1,"a":2}', 'json')).toEqual(broken);
    expect(readDocument('{"a":1}', 'xml').ok).toBe(false);
  });
});
