import { describe, expect, it } from 'vitest';
import { MessageParser } from '../../proxy/http-parser.js';

// Request bodies framed by Content-Length are cut from the bytes read rather than copied by
// llhttp; messages on either side of them must read exactly as before, however the bytes arrive.

const PIPELINED =
  'POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello' +
  'GET /b HTTP/1.1\r\nHost: a\r\n\r\n' +
  'POST /c HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nxyz' +
  'POST /d HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n' +
  'GET /e HTTP/1.1\r\nHost: a\r\n\r\n';

function reader() {
  const events: string[] = [];
  const pieces: Buffer[] = [];
  const parser = new MessageParser('request', {
    begin: () => events.push('begin'),
    head: (head) => {
      events.push(`head ${head.method} ${head.url}`);
      return false;
    },
    body: (chunk) => {
      pieces.push(chunk);
      events.push(`body ${chunk.toString()}`);
    },
    end: () => events.push('end'),
  });
  return { parser, events, pieces };
}

describe('the message parser', () => {
  it.each([PIPELINED.length, 1, 7, 13])('reads pipelined requests alike when fed %i bytes at a time', (step) => {
    const { parser, events } = reader();
    const bytes = Buffer.from(PIPELINED);
    for (let at = 0; at < bytes.length; at += step)
      expect(parser.execute(bytes.subarray(at, at + step))).toBeUndefined();
    parser.close();
    const heads = events.filter((e) => !e.startsWith('body'));
    expect(heads).toEqual(
      ['/a', '/b', '/c', '/d', '/e'].flatMap((url) => [
        'begin',
        `head ${url === '/b' || url === '/e' ? 'GET' : 'POST'} ${url}`,
        'end',
      ]),
    );
    const bodies = events.filter((e) => e.startsWith('body')).map((e) => e.slice(5));
    expect(bodies.join('')).toBe('helloxyzab');
  });

  it('hands over a Content-Length body as views of the bytes it was given, not copies', () => {
    const { parser, pieces } = reader();
    const bytes = Buffer.from('POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789');
    parser.execute(bytes);
    parser.close();
    expect(Buffer.concat(pieces).toString()).toBe('0123456789');
    for (const piece of pieces) expect(piece.buffer).toBe(bytes.buffer);
  });

  it('says a body is cut off when the stream ends inside it', () => {
    const { parser } = reader();
    parser.execute(Buffer.from('POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n01234'));
    expect(parser.finish()).toBeDefined();
    parser.close();
  });

  it('still refuses conflicting lengths', () => {
    const { parser } = reader();
    const error = parser.execute(
      Buffer.from('POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx'),
    );
    expect(error).toBe('HPE_UNEXPECTED_CONTENT_LENGTH');
    parser.close();
  });
});
