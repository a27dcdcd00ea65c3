import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageParser } from '../../proxy/http-parser.js';
import { withoutOws } from '../../proxy/message-framing.js';
import { rawExchange, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// Framing read from field values as RFC 9110 and 9112 read it, and as llhttp reads it byte for
// byte: optional white space is SP and HTAB alone; a transfer coding the proxy does not decode is
// refused (501 in a request, 502 for an answer: its bytes would go on described otherwise); an
// HTTP version other than 1.0 and 1.1 gets 505.

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
const HIDDEN = 'GET /internal/admin HTTP/1.1\r\nHost: internal\r\n\r\n';
const chunkedHidden = `${HIDDEN.length.toString(16)}\r\n${HIDDEN}\r\n0\r\n\r\n`;

function post(fields: string, body: string): string {
  return `POST /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${fields}\r\n${body}`;
}

describe('transfer codings and versions in requests', () => {
  for (const [name, bytes, status] of [
    ['a coding before chunked', post('Transfer-Encoding: gzip, chunked\r\n', chunkedHidden), 501],
    ['two codings before chunked', post('Transfer-Encoding: br,\tgzip , chunked\r\n', chunkedHidden), 501],
    ['chunked after U+00A0', post('Transfer-Encoding: \xa0chunked\r\n', chunkedHidden), 400],
    ['chunked before U+00A0', post('Transfer-Encoding: chunked\xa0\r\n', chunkedHidden), 400],
    ['an empty coding before chunked', post('Transfer-Encoding: , chunked\r\n', chunkedHidden), 400],
    ['HTTP/2.0', `GET /checkout/abc HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n`, 505],
    ['HTTP/0.9 with a head', `GET /checkout/abc HTTP/0.9\r\nHost: 127.0.0.1\r\n\r\n`, 505],
    ['a CONNECT in HTTP/2.0', `CONNECT 127.0.0.1:1 HTTP/2.0\r\nHost: 127.0.0.1:1\r\n\r\n`, 505],
  ] as const) {
    it(`refuses ${name} with ${status} and closes, and the target sees nothing`, async () => {
      const { server, heads } = scriptedTarget([OK]);
      await throughProxyTo(server, async (proxy) => {
        const answer = await rawExchange(proxy.url, `${bytes}${HIDDEN}`);
        expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
        expect(answer).toMatch(/connection: close/i);
        expect(answer.match(/HTTP\/1\.1/g)).toHaveLength(1);
      });
      expect(heads).toEqual([]);
    });
  }

  for (const [name, fields, body] of [
    ['Transfer-Encoding after tabs', 'Transfer-Encoding:\t \tchunked  \r\n', '2\r\n{}\r\n0\r\n\r\n'],
    ['Content-Length after a tab', 'Content-Length:\t2\r\n', '{}'],
    ['Content-Length between spaces', 'Content-Length:  2  \r\n', '{}'],
    ['Transfer-Encoding between tabs', 'Transfer-Encoding:\tchunked\t\r\n', '2\r\n{}\r\n0\r\n\r\n'],
    ['Content-Length between tabs', 'Content-Length:\t2\t\r\n', '{}'],
    ['a space and a tab after Content-Length', 'Content-Length: 2 \t\r\n', '{}'],
  ] as const) {
    it(`forwards a request with ${name}, framed as RFC 9110 reads it`, async () => {
      const { server, heads } = scriptedTarget([OK]);
      await throughProxyTo(server, async (proxy) => {
        const answer = await rawExchange(proxy.url, post(`${fields}Connection: close\r\n`, body));
        expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      });
      expect(heads).toHaveLength(1);
      // The head forwarded is written from the fields read, without the white space around values.
      expect(heads[0]).not.toMatch(/[ \t]\r\n/);
      expect(heads[0]).toMatch(
        /content-length: 2\r\n|transfer-encoding: chunked\r\n[\s\S]*\r\n2\r\n\{\}\r\n0\r\n\r\n$/i,
      );
    });
  }

  it('keeps HTTP/1.0 and HTTP/1.1 requests', async () => {
    const { server, heads } = scriptedTarget([OK]);
    await throughProxyTo(server, async (proxy) => {
      for (const version of ['1.0', '1.1'])
        expect(
          await rawExchange(
            proxy.url,
            `GET /checkout/abc HTTP/${version}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
          ),
        ).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    });
    expect(heads).toHaveLength(2);
  });
});

describe('transfer codings in answers', () => {
  for (const codings of ['gzip, chunked', 'chunked, chunked', 'gzip', 'identity']) {
    it(`answers 502 for Transfer-Encoding: ${codings}, never passing the bytes on half-described`, async () => {
      const body = '2\r\n{}\r\n0\r\n\r\n';
      const { server } = scriptedTarget([
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: ${codings}\r\n\r\n${body}`,
      ]);
      const log: string[] = [];
      await throughProxyTo(
        server,
        async (proxy) => {
          const answer = await rawExchange(
            proxy.url,
            'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
          );
          expect(answer).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
          expect(answer).toContain('a Transfer-Encoding other than chunked');
        },
        { log: (line) => log.push(line) },
      );
      expect(log.join('\n')).toMatch(/GET \/v2\/checkout\/abc → the target .* sent an invalid answer/);
    });
  }
});

// llhttp driven directly, as the reference: what it reads a request's body as, or that it refuses it.
const { HTTPParser } = createRequire(import.meta.url)('_http_common') as {
  HTTPParser: {
    new (): {
      initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
      execute(data: Buffer): number | Error;
      close(): void;
      [callback: number]: unknown;
    };
    REQUEST: number;
    kOnBody: number;
    kOnMessageComplete: number;
  };
};

function llhttpReads(bytes: Buffer): string {
  const parser = new HTTPParser();
  parser.initialize(HTTPParser.REQUEST, {}, 16 * 1024, 0);
  const bodies: string[] = [];
  let body = '';
  parser[HTTPParser.kOnBody] = (chunk: Buffer) => {
    body += chunk.toString('latin1');
  };
  parser[HTTPParser.kOnMessageComplete] = () => {
    bodies.push(body);
    body = '';
  };
  const result = parser.execute(bytes);
  parser.close();
  return typeof result === 'number' ? JSON.stringify(bodies) : 'refused';
}

function proxyReads(bytes: Buffer): string {
  const bodies: string[] = [];
  let body = '';
  const parser = new MessageParser('request', {
    head: () => false,
    body: (chunk) => {
      body += chunk.toString('latin1');
    },
    end: () => {
      bodies.push(body);
      body = '';
    },
  });
  const error = parser.execute(bytes);
  parser.close();
  return error ? 'refused' : JSON.stringify(bodies);
}

describe('field values: the framing check and llhttp agree on every byte', () => {
  it('strips SP and HTAB alone, not U+00A0 as trim() does', () => {
    expect(withoutOws(' \t chunked\t ')).toBe('chunked');
    expect(withoutOws('\xa0chunked')).toBe('\xa0chunked');
    expect(withoutOws('chunked\x0b')).toBe('chunked\x0b');
    expect(withoutOws('\t')).toBe('');
  });

  const around = fc.array(fc.constantFrom(' ', '\t', '\xa0', '\x0b', '\x0c', '\r', '\x85', '\ufeff'), {
    maxLength: 3,
  });
  const request = (field: string, value: string, body: string) =>
    Buffer.from(
      `POST / HTTP/1.1\r\nHost: a\r\n${field}:${value}\r\n\r\n${body}GET /next HTTP/1.1\r\nHost: a\r\n\r\n`,
      'latin1',
    );

  // RFC 9110 §5.5: a value loses the SP and HTAB around it, and nothing else.
  const owsAlone = (chars: string[]) => chars.every((c) => c === ' ' || c === '\t');

  it('for Transfer-Encoding: the proxy reads the bodies RFC 9110 reads, and refuses the rest', () => {
    fc.assert(
      fc.property(
        around,
        around,
        fc.constantFrom('chunked', 'gzip, chunked', 'chunked, chunked'),
        (before, after, coding) => {
          const bytes = request(
            'Transfer-Encoding',
            `${before.join('')}${coding}${after.join('')}`,
            '2\r\nab\r\n0\r\n\r\n',
          );
          const read = coding === 'chunked' && owsAlone(before) && owsAlone(after);
          expect(proxyReads(bytes)).toBe(read ? JSON.stringify(['ab', '']) : 'refused');
          // Where llhttp alone reads a body too, it is the same one.
          if (read && llhttpReads(bytes) !== 'refused') expect(proxyReads(bytes)).toBe(llhttpReads(bytes));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('for Content-Length: the proxy reads the bodies RFC 9110 reads, and refuses the rest', () => {
    fc.assert(
      fc.property(around, around, (before, after) => {
        const bytes = request('Content-Length', `${before.join('')}2${after.join('')}`, 'ab');
        const read = owsAlone(before) && owsAlone(after);
        expect(proxyReads(bytes)).toBe(read ? JSON.stringify(['ab', '']) : 'refused');
        if (read && llhttpReads(bytes) !== 'refused') expect(proxyReads(bytes)).toBe(llhttpReads(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('an HTAB after the value is white space on every Node.js line: the proxy reads the body after it (RFC 9110 §5.5)', () => {
    for (const [field, value, body] of [
      ['Transfer-Encoding', '\tchunked\t', '2\r\nab\r\n0\r\n\r\n'],
      ['Content-Length', '\t2\t', 'ab'],
    ] as const)
      expect(proxyReads(request(field, value, body))).toBe(JSON.stringify(['ab', '']));
  });
});
