import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endMatched, headEnd } from '../../proxy/head-ows.js';
import { MessageParser } from '../../proxy/http-parser.js';

// An HTAB in the white space after a field value is optional white space like SP (RFC 9110 §5.5,
// §5.6.3): the proxy reads `Transfer-Encoding: chunked<TAB>` and `Content-Length: 2<TAB>` on every
// Node.js line, however the bytes are split into reads, and changes no body byte; anything else
// llhttp refuses it still refuses.

interface Reading {
  /** Each message: its framing and its body, or where it was refused. */
  messages: string[];
  refused?: string;
}

function readAll(kind: 'request' | 'response', pieces: Buffer[]): Reading {
  const messages: string[] = [];
  let current = '';
  let body = '';
  const parser = new MessageParser(kind, {
    head: (head) => {
      current = `${head.framing.kind}${head.keepAlive ? '' : ' close'}`;
      return false;
    },
    body: (chunk) => {
      body += chunk.toString('latin1');
    },
    end: () => {
      messages.push(`${current}:${body}`);
      body = '';
    },
  });
  for (const piece of pieces) {
    const refused = parser.execute(piece);
    if (refused) {
      parser.close();
      return { messages, refused };
    }
  }
  const cut = parser.finish();
  parser.close();
  return cut ? { messages, refused: cut } : { messages };
}

/** The bytes cut at the given offsets. */
function cutAt(bytes: Buffer, offsets: number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => Math.min(o, bytes.length)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let at = 0;
  for (const point of points) {
    if (point > at) pieces.push(bytes.subarray(at, point));
    at = Math.max(at, point);
  }
  if (at < bytes.length) pieces.push(bytes.subarray(at));
  return pieces;
}

/** Read whole, and cut in two at every offset: the same every time. */
function readEveryWay(kind: 'request' | 'response', text: string): Reading {
  const bytes = Buffer.from(text, 'latin1');
  const whole = readAll(kind, [Buffer.from(bytes)]);
  for (let at = 1; at < bytes.length; at += 1) expect(readAll(kind, cutAt(Buffer.from(bytes), [at]))).toEqual(whole);
  expect(readAll(kind, cutAt(Buffer.from(bytes), [...bytes.keys()]))).toEqual(whole);
  return whole;
}

const request = (field: string, body: string) => `POST /a HTTP/1.1\r\nHost: a\r\n${field}\r\n\r\n${body}`;
const GET = 'GET /next HTTP/1.1\r\nHost: a\r\n\r\n';
const CHUNKED_AB = '2\r\nab\r\n0\r\n\r\n';

describe('a tab after a framing value', () => {
  for (const [name, field, body] of [
    ['Transfer-Encoding: chunked<TAB>', 'Transfer-Encoding: chunked\t', CHUNKED_AB],
    ['Transfer-Encoding:<TAB>chunked<TAB>', 'Transfer-Encoding:\tchunked\t', CHUNKED_AB],
    ['Transfer-Encoding: chunked<SP><TAB><SP><TAB>', 'Transfer-Encoding: chunked \t \t', CHUNKED_AB],
    ['Transfer-Encoding: CHUNKED<TAB><TAB>', 'Transfer-Encoding: CHUNKED\t\t', CHUNKED_AB],
    ['Content-Length: 2<TAB>', 'Content-Length: 2\t', 'ab'],
    ['Content-Length:<TAB>2<TAB><SP>', 'Content-Length:\t2\t ', 'ab'],
  ] as const) {
    it(`reads a request with ${name} as RFC 9110 does, however it is split`, () => {
      const framing = field.startsWith('Transfer') ? 'chunked' : 'length';
      expect(readEveryWay('request', request(field, body) + GET)).toEqual({
        messages: [`${framing}:ab`, 'none:'],
      });
    });

    it(`reads an answer with ${name} as RFC 9110 does, however it is split`, () => {
      const framing = field.startsWith('Transfer') ? 'chunked' : 'length';
      expect(readEveryWay('response', `HTTP/1.1 200 OK\r\n${field}\r\n\r\n${body}`)).toEqual({
        messages: [`${framing}:ab`],
      });
    });
  }

  it('reads a tab after Connection: close as a space (Node.js 20 kept the connection open)', () => {
    expect(readEveryWay('request', 'GET /a HTTP/1.1\r\nHost: a\r\nConnection: close\t\r\n\r\n')).toEqual({
      messages: ['none close:'],
    });
  });

  it('reads the head after a chunked body in the same read, however the reads are cut', () => {
    const text =
      request('Transfer-Encoding: chunked', '3\r\na\t\r\r\n0\r\nX: y\t\r\n\r\n') +
      GET +
      request('Transfer-Encoding: chunked\t', '1\r\n\t\r\n0\r\n\r\n\r\n') +
      request('Content-Length: 3\t', '\t\r\n') +
      request('Transfer-Encoding: chunked', '09;name="v\t"\r\n\r\n\r\n\t\r\n\r\n\r\n0002\r\nxy\r\n000\r\n\r\n') +
      request('Transfer-Encoding: chunked\t', 'A\r\n\r\n\r\n\r\n\r\n\t\r\r\n0\r\n\r\n') +
      GET;
    expect(readEveryWay('request', text)).toEqual({
      messages: [
        'chunked:a\t\r',
        'none:',
        'chunked:\t',
        'length:\t\r\n',
        'chunked:\r\n\r\n\t\r\n\r\nxy',
        'chunked:\r\n\r\n\r\n\r\n\t\r',
        'none:',
      ],
    });
  });

  it('changes no body byte: tabs before CRLFs in bodies pass as they came', () => {
    const data = 'x\t\r\n\t \r\n\r\n\t\r\n';
    const chunked = `${data.length.toString(16)}\r\n${data}\r\n0\r\n\r\n`;
    expect(readEveryWay('request', request('Transfer-Encoding: chunked', chunked))).toEqual({
      messages: [`chunked:${data}`],
    });
    expect(readEveryWay('request', request(`Content-Length: ${data.length}`, data))).toEqual({
      messages: [`length:${data}`],
    });
    expect(readEveryWay('response', `HTTP/1.1 200 OK\r\nContent-Length: ${data.length}\r\n\r\n${data}`)).toEqual({
      messages: [`length:${data}`],
    });
    expect(readEveryWay('response', `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`)).toEqual({
      messages: [`chunked:${data}`],
    });
    expect(readAll('response', [Buffer.from(`HTTP/1.1 200 OK\r\n\r\n${data}`, 'latin1')])).toEqual({
      messages: [`close close:${data}`],
    });
  });

  it("never changes the caller's bytes", () => {
    const text = request('Transfer-Encoding: chunked\t', CHUNKED_AB);
    const bytes = Buffer.from(text, 'latin1');
    readAll('request', [bytes]);
    expect(bytes.toString('latin1')).toBe(text);
  });

  for (const [name, field] of [
    ['a tab inside the coding', 'Transfer-Encoding: chunk\ted'],
    ['a space inside the coding', 'Transfer-Encoding: chunk ed'],
    ['a tab inside the length', 'Content-Length: 1\t2'],
    ['U+00A0 after chunked', 'Transfer-Encoding: chunked\xa0'],
    ['U+00A0 and a tab after chunked', 'Transfer-Encoding: chunked\xa0\t'],
    ['a vertical tab after the length', 'Content-Length: 2\x0b'],
    ['a bare CR after a tab', 'Transfer-Encoding: chunked\t\rX: y'],
    ['a tab and a bare LF', 'Transfer-Encoding: chunked\t\nX: y'],
    ['obs-fold after a tab', 'Transfer-Encoding: chunked\t\r\n\tgzip'],
    ['obs-fold of white space alone', 'X: y\r\n\t'],
    ['chunked not last', 'Transfer-Encoding: chunked\t, gzip'],
    ['two lengths that disagree', 'Content-Length: 2\t, 3\t'],
    ['a tab before the colon', 'Transfer-Encoding\t: chunked'],
    ['a tab before the colon of a length', 'Content-Length\t:2'],
  ] as const)
    it(`still refuses ${name}, however it is split`, () => {
      const body = field.startsWith('Content') ? 'ab' : CHUNKED_AB;
      expect(readEveryWay('request', request(field, body) + GET).refused).toMatch(/^HPE_|UNDECODED/);
    });

  it('keeps a tab at the end of a request line refused', () => {
    expect(readEveryWay('request', 'GET /a HTTP/1.1\t\r\nHost: a\r\n\r\n').refused).toBe('HPE_INVALID_VERSION');
  });

  it('refuses a head whose white space runs on, a tab a read, past 1 KiB', () => {
    const pieces = [Buffer.from('POST /a HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked')];
    for (let index = 0; index < 1100; index += 1) pieces.push(Buffer.from('\t'));
    pieces.push(Buffer.from(`\r\n\r\n${CHUNKED_AB}`));
    expect(readAll('request', pieces).refused).toBe('HPE_HEADER_OVERFLOW');
    // Decided in one read, the same run is white space.
    expect(readAll('request', [Buffer.concat(pieces)])).toEqual({ messages: ['chunked:ab'] });
  });

  it('says a head is cut off when the stream ends on a held tab', () => {
    expect(readAll('request', [Buffer.from('GET /a HTTP/1.1\r\nHost: a\t')]).refused).toBe('HPE_INVALID_EOF_STATE');
  });
});

describe('white space around framing values, at random (fast-check)', () => {
  const around = fc.array(fc.constantFrom(' ', '\t', '\xa0', '\x0b', '\r'), { maxLength: 4 });
  const ows = (chars: string[]) => chars.every((c) => c === ' ' || c === '\t');

  it('the proxy frames what RFC 9110 frames, refuses the rest, however the reads are cut', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('Transfer-Encoding', 'Content-Length'),
        around,
        around,
        fc.constantFrom('request', 'response') as fc.Arbitrary<'request' | 'response'>,
        fc.array(fc.nat({ max: 140 }), { maxLength: 6 }),
        (field, before, after, kind, cuts) => {
          const chunked = field === 'Transfer-Encoding';
          const value = `${before.join('')}${chunked ? 'chunked' : '2'}${after.join('')}`;
          const body = chunked ? CHUNKED_AB : 'ab';
          const text =
            kind === 'request'
              ? `POST /a HTTP/1.1\r\nHost: a\r\n${field}:${value}\r\n\r\n${body}${GET}`
              : `HTTP/1.1 200 OK\r\n${field}:${value}\r\n\r\n${body}`;
          const reading = readAll(kind, cutAt(Buffer.from(text, 'latin1'), cuts));
          const framing = chunked ? 'chunked' : 'length';
          if (ows(before) && ows(after))
            expect(reading).toEqual({ messages: kind === 'request' ? [`${framing}:ab`, 'none:'] : [`${framing}:ab`] });
          // A value with anything but SP and HTAB around it frames no body: the message is refused.
          else expect(reading).toEqual({ messages: [], refused: expect.stringMatching(/^HPE_|^UNDECODED/) });
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('where a head ends, across reads', () => {
  const bytes = (text: string) => Buffer.from(text, 'latin1');

  it('finds an end begun in the read before, and carries what a read ends with', () => {
    expect(headEnd(bytes('\nX'), 0, 3)).toBe(1);
    expect(headEnd(bytes('\r\nX'), 0, 2)).toBe(2);
    expect(headEnd(bytes('\n\r\nX'), 0, 1)).toBe(3);
    expect(headEnd(bytes('X\r\n\r\n'), 0, 3)).toBe(5);
    expect(headEnd(bytes('X\r\n'), 0, 0)).toBe(-1);
    expect(endMatched(bytes('a\r\n\r'), 0, 4, 0)).toBe(3);
    expect(endMatched(bytes('\r'), 0, 1, 2)).toBe(3);
    expect(endMatched(bytes('\n'), 0, 1, 3)).toBe(2);
    expect(endMatched(bytes('\r\n'), 0, 2, 2)).toBe(2);
    expect(endMatched(bytes('\r\n\r\n'), 0, 4, 0)).toBe(2);
    expect(endMatched(bytes('ab'), 0, 2, 3)).toBe(0);
  });
});
