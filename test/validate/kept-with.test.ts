import { describe, expect, it } from 'vitest';
import { KeptWith } from '../../src/validate/kept-with.js';

describe('KeptWith', () => {
  it('finds what was kept with an object, and nothing for another', () => {
    const kept = new KeptWith<object, string>('reading');
    const document = { format: 'json', value: {} };
    expect(kept.get(document)).toBeUndefined();
    kept.set(document, 'read');
    expect(kept.get(document)).toBe('read');
    expect(kept.get({ format: 'json', value: {} })).toBeUndefined();
  });

  it('keeps each instance apart on one object', () => {
    const first = new KeptWith<object, number>('first');
    const second = new KeptWith<object, number>('second');
    const document = {};
    first.set(document, 1);
    second.set(document, 2);
    expect([first.get(document), second.get(document)]).toEqual([1, 2]);
  });

  it('keeps a reading of a frozen object too, without changing it', () => {
    const kept = new KeptWith<object, string>('reading');
    const frozen = Object.freeze({ format: 'xml' });
    kept.set(frozen, 'read');
    expect(kept.get(frozen)).toBe('read');
    expect(Object.getOwnPropertySymbols(frozen)).toEqual([]);
  });

  it('leaves what is kept out of the object as JSON and structured clones see it', () => {
    const kept = new KeptWith<object, string>('reading');
    const document = { format: 'json', value: { a: 1 } };
    kept.set(document, 'read');
    expect(JSON.stringify(document)).toBe('{"format":"json","value":{"a":1}}');
    expect(structuredClone(document)).toEqual({ format: 'json', value: { a: 1 } });
    expect(Object.keys(document)).toEqual(['format', 'value']);
  });
});
