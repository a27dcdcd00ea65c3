import { describe, expect, it } from 'vitest';
import { type HarItem, harItems } from '../../src/recording/har-reader.js';

// HAR files are read entry by entry as their bytes come: an odd entry is skipped with a warning,
// a document cut off keeps its whole entries, and only a document with no entries to read at all
// is refused.

const entry = (code: string, status = 200) => ({
  startedDateTime: '2026-01-01T00:00:00.000Z',
  time: 3,
  request: {
    method: 'GET',
    url: `http://s.test/v2/checkout/${code}`,
    headers: [{ name: 'Accept', value: 'application/json' }],
  },
  response: {
    status,
    headers: [{ name: 'Content-Type', value: 'application/json' }],
    content: { size: 2, mimeType: 'application/json', text: '{}' },
  },
});

/** Where the last entry of a document starts. */
const lastEntry = (text: string) => text.lastIndexOf('{', text.lastIndexOf('"startedDateTime"'));

const har = (entries: unknown[]) =>
  JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries } }, null, 2);

async function* chunked(text: string, size: number) {
  const bytes = Buffer.from(text);
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

async function read(text: string, size = 1 << 20): Promise<HarItem[]> {
  const items: HarItem[] = [];
  for await (const batch of harItems(chunked(text, size), 'x.har')) items.push(...batch);
  return items;
}

const urls = (items: HarItem[]) => items.flatMap((item) => ('exchange' in item ? [item.exchange.request.url] : []));
const warnings = (items: HarItem[]) => items.flatMap((item) => ('warning' in item ? [item.warning] : []));

describe('harItems', () => {
  it('reads every entry, the same in one buffer or in buffers of 7 bytes', async () => {
    const text = har([entry('a'), entry('b', 500), entry('c')]);
    for (const size of [7, 1 << 20]) {
      const items = await read(text, size);
      expect(urls(items)).toEqual(['a', 'b', 'c'].map((code) => `http://s.test/v2/checkout/${code}`));
      expect(items.map((item) => item.entry)).toEqual([1, 2, 3]);
      const second = items[1] as { exchange: { response: { status: number; headers: object } } };
      expect(second.exchange.response).toMatchObject({ status: 500, headers: { 'content-type': 'application/json' } });
    }
  });

  it('skips an entry without request.url, or of another shape, with a warning, and reads the others', async () => {
    const noUrl = entry('x') as { request: { url?: string } };
    delete noUrl.request.url;
    const items = await read(
      har([
        entry('a'),
        noUrl,
        'text',
        { ...entry('y'), response: { status: '200' } },
        { request: null },
        { ...entry('z'), response: { status: 99999 } },
        entry('b'),
      ]),
    );
    expect(urls(items)).toEqual(['http://s.test/v2/checkout/a', 'http://s.test/v2/checkout/b']);
    expect(warnings(items)).toEqual([
      'HAR entry 2 skipped: request.url is not a string',
      'HAR entry 3 skipped: it is not an object',
      'HAR entry 4 skipped: response.status is not a number',
      'HAR entry 5 skipped: it has no request',
      'HAR entry 6 skipped: response.status 99999 is not an HTTP status (100-599)',
    ]);
  });

  it('keeps the whole entries of a document cut off anywhere in its third entry, and says it ends early', async () => {
    const whole = har([entry('a'), entry('b'), entry('c')]);
    const closed = whole.lastIndexOf('}', whole.lastIndexOf(']'));
    for (let end = lastEntry(whole); end <= closed; end += 7) {
      const items = await read(whole.slice(0, end), 64);
      expect(urls(items)).toHaveLength(2);
      expect(warnings(items)).toEqual([
        'the HAR document ends early (cut off before it was closed?): its first 2 entries were read',
      ]);
    }
  });

  it('keeps the entries before a break in the middle of the document, and says where it broke', async () => {
    const whole = har([entry('a'), entry('b')]);
    const items = await read(`${whole.slice(0, lastEntry(whole))}@@@ ${'x'.repeat(100)}`);
    expect(urls(items)).toEqual(['http://s.test/v2/checkout/a']);
    expect(warnings(items)).toEqual([
      expect.stringMatching(/^the HAR document breaks off after entry 1 \(.+\): its first 1 entries were read$/),
    ]);
  });

  it('refuses a document with no entries to read, and gives none for an empty list', async () => {
    await expect(read('{"log": {"entries": 5}}')).rejects.toThrow('x.har is not valid HAR: log.entries is missing');
    await expect(read('{"log": {"pages": []}}')).rejects.toThrow('x.har is not valid HAR: log.entries is missing');
    await expect(read('{"log": {"entries": {"a": {}}}}')).rejects.toThrow('log.entries is missing');
    await expect(read('{"log": {"version": "1.2", "entr')).rejects.toThrow(/^x\.har is not valid HAR: /);
    expect(await read('{"log": {"creator": {"entries": [1]}, "entries": []}}\n')).toEqual([]);
  });
});

describe('a HAR saved without bodies', () => {
  it('reads a body that names an 8-bit encoding, and gives no size, as the bytes it names', async () => {
    const xml = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<Checkout><Name>Café Müller</Name></Checkout>';
    for (const size of [-1, undefined]) {
      const latin1 = entry('abc') as unknown as { response: { content: Record<string, unknown> } };
      latin1.response.content = { size, mimeType: 'application/xml; charset=ISO-8859-1', text: xml };
      const [item] = await read(har([latin1]));
      // One byte a character, as ISO-8859-1 writes it: never the UTF-8 length of the decoded text.
      expect(item && 'exchange' in item ? item.exchange.response?.body?.size : undefined, String(size)).toBe(
        xml.length,
      );
    }
  });

  it('keeps the size of a body it left out, never an empty body a rule could blame', async () => {
    const bare = entry('abc', 201) as { response: { content: { size: number; text?: string } } };
    bare.response.content = { size: 420 };
    const [item] = await read(har([bare]));
    expect(item && 'exchange' in item ? item.exchange.response?.body : undefined).toEqual({
      size: 420,
      skipped: 'not recorded in the HAR',
    });
  });
});
