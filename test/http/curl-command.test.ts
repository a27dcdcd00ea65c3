import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CurlOptions, curlCommand } from '../../src/http/curl-command.js';
import type { Exchange, RecordedBody } from '../../src/validate/exchange.js';

// Each command is run as a person would run it: pasted into a POSIX shell (sh -c), against a
// loopback server that notes what arrived.

const run = promisify(execFile);

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

let server: Server;
let base = '';
let seen: Seen | undefined;
const home = mkdtempSync(join(tmpdir(), 'curl-command-'));

function record(request: IncomingMessage, done: (body: Buffer) => void) {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => done(Buffer.concat(chunks)));
}

beforeAll(async () => {
  server = createServer((request, response) => {
    record(request, (body) => {
      const headers: Record<string, string> = {};
      for (let i = 0; i < request.rawHeaders.length; i += 2) {
        headers[(request.rawHeaders[i] as string).toLowerCase()] = request.rawHeaders[i + 1] as string;
      }
      seen = { method: request.method ?? '', url: request.url ?? '', headers, body };
      // A body's download without the token it asks for is refused, as the control API refuses it.
      if (request.url === '/token-body' && headers.authorization !== 'Bearer s3cret') response.statusCode = 401;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(home, { recursive: true, force: true });
});

/** Runs the command in sh with only the variables given (no proxy, no .curlrc) and returns what arrived. */
async function replay(command: string, env: Record<string, string> = {}): Promise<Seen> {
  seen = undefined;
  await run('sh', ['-c', `${command} --silent --show-error --output /dev/null`], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...env },
  });
  if (!seen) throw new Error('the server saw nothing');
  return seen;
}

const text = (value: string): RecordedBody => ({ text: value, size: Buffer.byteLength(value) });
const bytes = (value: Buffer): RecordedBody => ({ base64: value.toString('base64'), size: value.length });

function exchange(method: string, path: string, headers: Record<string, string>, body?: RecordedBody): Exchange {
  return { request: { method, url: `${base}${path}`, headers, ...(body ? { body } : {}) } };
}

describe('curl command of a recorded exchange, run in a shell', () => {
  it('sends the same method, path, headers and body bytes, credentials from the environment', async () => {
    const body = `{\r\n  "note": "it's $HOME \`id\` $(id) \\\\ %s %d \\"q\\" \\t é 😀",\r\n  "secret": "s3cr3t-value"\r\n}`;
    const recorded = exchange(
      'POST',
      "/v2/checkout/AB%20c?access_token=tok-123&x=%24y&q='a'",
      {
        'content-type': 'application/json; charset=utf-8',
        accept: 'application/json',
        authorization: 'Bearer tok-123',
        cookie: 'session=c00kie; theme=dark',
        'x-api-key': 'key-4567',
        'x-client-secret': 'client-789',
        'x-trace': "it's $PATH; `id`",
        connection: 'keep-alive',
        'content-length': '999',
        host: 'elsewhere.example.test',
      },
      text(body),
    );
    const options: CurlOptions = { secrets: ['s3cr3t-value', 'tok-123'], credentialHeaders: ['X-Client-Secret'] };
    const command = curlCommand(recorded, options);
    for (const secret of ['s3cr3t-value', 'tok-123', 'key-4567', 'client-789', 'c00kie']) {
      expect(command).not.toContain(secret);
    }
    expect(command).toContain(`-H 'authorization: Bearer '"$TOKEN"`);
    expect(command).not.toContain('keep-alive');
    const got = await replay(command, {
      TOKEN: 'tok-123',
      COOKIE: 'session=c00kie; theme=dark',
      X_API_KEY: 'key-4567',
      X_CLIENT_SECRET: 'client-789',
      SECRET_1: 's3cr3t-value',
      ACCESS_TOKEN: 'tok-123',
    });
    expect(got.method).toBe('POST');
    expect(got.url).toBe("/v2/checkout/AB%20c?access_token=tok-123&x=%24y&q='a'");
    for (const name of [
      'content-type',
      'accept',
      'authorization',
      'cookie',
      'x-api-key',
      'x-client-secret',
      'x-trace',
    ]) {
      expect(got.headers[name], name).toBe(recorded.request.headers[name]);
    }
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(got.headers.host).toBe(new URL(base).host);
    expect(got.body.equals(Buffer.from(body))).toBe(true);
  });

  it('carries a one-line body as one quoted word, and a body starting with "@" as data', async () => {
    const body = `{"note":"'$HOME' \\"x\\" %s","n":1}`;
    const command = curlCommand(exchange('POST', '/v2/checkout/A', { 'content-type': 'application/json' }, text(body)));
    expect(command).not.toContain('printf');
    expect(command).toContain("--data-binary '{\"note\":\"'\\''$HOME'\\''");
    expect((await replay(command)).body.toString()).toBe(body);
    const at = curlCommand(exchange('POST', '/v2/checkout/A', { 'content-type': 'text/plain' }, text('@/etc/passwd')));
    expect(at).toContain('--data-raw');
    expect((await replay(at)).body.toString()).toBe('@/etc/passwd');
  });

  it('sends binary bytes exactly, with the method recorded', async () => {
    const file = Buffer.concat([
      Buffer.from('-%PDF-1.7\n\\x'),
      Buffer.from([0, 1, 0x1b, 0x7f, 0x80, 0xff, 0x25, 0x27]),
    ]);
    const command = curlCommand(exchange('PUT', '/v2/files/F', { 'content-type': 'application/pdf' }, bytes(file)));
    expect(command).toMatch(/^printf '.*' \| curl -X PUT /);
    const got = await replay(command);
    expect(got.method).toBe('PUT');
    expect(got.body.equals(file)).toBe(true);
  });

  it('sends a multipart body held whole as recorded, boundary and all', async () => {
    const multipart = Buffer.concat([
      Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="c.pdf"\r\n'),
      Buffer.from('Content-Type: application/pdf\r\n\r\n%PDF-1.7\n'),
      Buffer.from([0, 0xff]),
      Buffer.from('\r\n--XyZ--\r\n'),
    ]);
    const type = 'multipart/form-data; boundary=XyZ';
    const got = await replay(curlCommand(exchange('POST', '/v2/files/F', { 'content-type': type }, bytes(multipart))));
    expect(got.headers['content-type']).toBe(type);
    expect(got.body.equals(multipart)).toBe(true);
  });

  it('rebuilds a multipart body held only as parts from files the person supplies', async () => {
    const content = Buffer.from('%PDF-1.7 content');
    writeFileSync(join(home, 'content.pdf'), content);
    const recorded = exchange(
      'POST',
      '/v2/files/F',
      { 'content-type': 'multipart/form-data; boundary=old' },
      {
        size: 400,
        skipped: 'too large',
        parts: [
          { name: 'role', size: 7, headBase64: Buffer.from('content').toString('base64') },
          { name: 'file', filename: 'content.pdf', contentType: 'application/pdf', size: content.length },
        ],
      },
    );
    const command = curlCommand(recorded);
    expect(command).toContain("--form-string role=content -F 'file=@content.pdf;type=application/pdf'");
    expect(command).toMatch(/# content\.pdf: the 16 bytes sent$/);
    const got = await replay(command.replace(/ {2}#.*$/, ''));
    const sent = got.body.toString('latin1');
    expect(got.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent).toContain('name="role"\r\n\r\ncontent\r\n');
    expect(sent).toContain(
      'name="file"; filename="content.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7 content',
    );
  });

  it('keeps every value from traffic data: no part name, type or header becomes a file reference', async () => {
    writeFileSync(join(home, 'private-key'), 'PRIVATE KEY MATERIAL');
    writeFileSync(join(home, 'a.pdf'), '%PDF-1.7');
    const planted = join(home, 'private-key');
    const recorded = exchange(
      'POST',
      '/v2/files/F',
      {
        'content-type': 'multipart/form-data; boundary=old',
        [`@${planted}`]: 'x',
        'x-note': `a\r\nx-injected: <${planted}`,
      },
      {
        size: 400,
        skipped: 'too large',
        sha256: 'abc\ncat /etc/passwd',
        parts: [
          { name: `file=@${planted};x`, size: 2, headBase64: Buffer.from('hi').toString('base64') },
          { name: `doc=<${planted};a`, filename: 'a.pdf', contentType: `application/pdf;x=@${planted}`, size: 8 },
        ],
      },
    );
    const command = curlCommand(recorded);
    expect(command.split('\n')).toHaveLength(1);
    const got = await replay(command.replace(/ {2}#.*$/, ''));
    const sent = got.body.toString('latin1');
    expect(sent).not.toContain('PRIVATE KEY MATERIAL');
    expect(JSON.stringify(got.headers)).not.toContain('PRIVATE KEY MATERIAL');
    expect(got.headers['x-injected']).toBeUndefined();
  });

  it('sends GET, HEAD and DELETE as recorded, empty headers kept, no Content-Type added', async () => {
    const get = curlCommand(exchange('GET', '/v2/checkout/A', { accept: 'application/xml', 'x-empty': '' }));
    expect(get).toMatch(/^curl -H /);
    const got = await replay(get);
    expect(got.method).toBe('GET');
    expect(got.headers['x-empty']).toBe('');
    expect((await replay(curlCommand(exchange('HEAD', '/v2/checkout/A', {})))).method).toBe('HEAD');
    expect((await replay(curlCommand(exchange('DELETE', '/v2/checkout/A', {})))).method).toBe('DELETE');
    const bare = await replay(curlCommand(exchange('POST', '/v2/files/F', {}, text('plain'))));
    expect(bare.headers['content-type']).toBeUndefined();
    expect(bare.body.toString()).toBe('plain');
  });

  it('keeps brackets and dot segments in the URL as they were', async () => {
    const command = curlCommand(exchange('GET', '/v2/a/../checkout/[x]{y}', {}));
    expect(command).toContain('--globoff');
    expect(command).toContain('--path-as-is');
    expect((await replay(command)).url).toBe('/v2/a/../checkout/[x]{y}');
  });
});

describe('curl command of a form body', () => {
  it('leaves secret parameters to variables, first or not, and sends the rest as it was', async () => {
    const form = 'client_secret=cs-1&grant_type=client_credentials&password=pw-2';
    const recorded = exchange(
      'POST',
      '/oauth/token',
      { 'content-type': 'application/x-www-form-urlencoded' },
      text(form),
    );
    const command = curlCommand(recorded);
    expect(command).not.toMatch(/cs-1|pw-2/);
    const got = await replay(command, { CLIENT_SECRET: 'cs-1', PASSWORD: 'pw-2' });
    expect(got.body.toString()).toBe(form);
  });
});

describe('curl command of a body the recording does not hold', () => {
  it('names a file for the body, with its size and digest', () => {
    const recorded = exchange(
      'POST',
      '/v2/files/F',
      { 'content-type': 'application/pdf' },
      { size: 9000000, sha256: 'ab12', headBase64: 'JVBERg==', skipped: 'too large' },
    );
    expect(curlCommand(recorded)).toBe(
      `curl -H 'content-type: application/pdf' --data-binary @body.pdf ${base}/v2/files/F  # body.pdf: the 9000000 bytes sent, sha256 ab12, not kept whole in the recording`,
    );
  });

  it('sends an empty body as empty, whether or not its text was recorded', async () => {
    for (const body of [{ size: 0 }, { size: 0, text: '' }]) {
      const command = curlCommand(exchange('POST', '/v2/checkout/A', { 'content-type': 'application/json' }, body));
      expect(command).toContain("--data-binary ''");
      const got = await replay(command);
      expect(got.method).toBe('POST');
      expect(got.headers['content-length']).toBe('0');
    }
  });

  it('sends a GET that framed no body with none, and one that framed an empty body with it', async () => {
    const plain = curlCommand(exchange('GET', '/v2/checkout/A', { accept: 'application/json' }, { size: 0 }));
    expect(plain).toBe(`curl -H 'accept: application/json' ${base}/v2/checkout/A`);
    const got = await replay(plain);
    expect([got.method, got.headers['content-length'], got.headers['content-type']]).toEqual([
      'GET',
      undefined,
      undefined,
    ]);
    const framed = curlCommand(exchange('GET', '/v2/checkout/A', { 'content-length': '0' }, { size: 0 }));
    expect(framed).toContain("--data-binary ''");
  });

  it('goes through a proxy when given one, so that the request sent again passes it', async () => {
    const recorded = { request: { method: 'GET', url: 'http://api.example.test/v2/checkout/A', headers: {} } };
    const command = curlCommand(recorded, { proxy: `${base}/` });
    expect(command).toBe(`curl --proxy ${base}/ http://api.example.test/v2/checkout/A`);
    expect((await replay(command)).url).toBe('http://api.example.test/v2/checkout/A');
  });

  it('reads a body kept whole but too large for the line from where it is kept', async () => {
    const file = Buffer.alloc(10_000, 0x25);
    const recorded = exchange('POST', '/v2/files/A', { 'content-type': 'application/pdf' }, bytes(file));
    const command = curlCommand(recorded, { bodyUrl: `${base}/kept-body` });
    expect(command).toBe(
      `curl -sf -o print-conformance-request-body.pdf ${base}/kept-body && curl -H 'content-type: application/pdf' --data-binary @print-conformance-request-body.pdf ${base}/v2/files/A`,
    );
    expect(command).not.toMatch(/not kept|#/);
    // The loopback server answers "ok" to the body's download: that is what goes up again.
    writeFileSync(join(home, 'body.pdf'), 'a file of the reader');
    const arrived = await replay(command);
    expect([arrived.method, arrived.url, arrived.body.toString()]).toEqual(['POST', '/v2/files/A', 'ok']);
    // A file of the folder's own, under the name such lines once used, is not written over.
    expect(readFileSync(join(home, 'body.pdf'), 'utf8')).toBe('a file of the reader');
  });

  it('sends nothing when the kept body cannot be downloaded: a refusal is never sent on as the body', async () => {
    const file = Buffer.alloc(10_000, 0x25);
    const recorded = exchange('POST', '/v2/files/A', { 'content-type': 'application/pdf' }, bytes(file));
    const command = curlCommand(recorded, { bodyUrl: `${base}/token-body`, bodyUrlToken: 'CONTROL_TOKEN' });
    expect(command).toMatch(
      /^curl -sf -H 'Authorization: Bearer '"\$CONTROL_TOKEN" -o print-conformance-request-body\.pdf \S+\/token-body && curl /,
    );
    // Without the token the download is refused, and the upload is not made.
    await expect(replay(command)).rejects.toThrow();
    expect(seen?.url).toBe('/token-body');
    const arrived = await replay(command, { CONTROL_TOKEN: 's3cret' });
    expect([arrived.url, arrived.body.toString()]).toEqual(['/v2/files/A', 'ok']);
  });

  it('leaves a body larger than the limit to a file too', () => {
    const recorded = exchange('POST', '/v2/checkout/A', { 'content-type': 'application/json' }, text('{"a":1}'));
    expect(curlCommand(recorded, { maxBodyBytes: 4 })).toContain('--data-binary @body.json');
  });

  it('writes credentials of other schemes and unknown secrets as placeholders', () => {
    const recorded = exchange('GET', '/v2/checkout/A?token=abcd1234', {
      authorization: 'Basic dXNlcjpwYXNz',
      'proxy-authorization': 'Bearer x',
      'x-note': 'carries abcd1234',
    });
    const command = curlCommand(recorded, { secrets: ['abcd1234'] });
    expect(command).toContain(`-H 'authorization: Basic '"$CREDENTIALS"`);
    expect(command).toContain(`-H 'proxy-authorization: '"$PROXY_AUTHORIZATION"`);
    expect(command).toContain(`-H 'x-note: carries '"$SECRET"`);
    expect(command).toContain(`'${base}/v2/checkout/A?token='"$TOKEN"`);
    expect(command).not.toContain('abcd1234');
    expect(command).not.toContain('dXNlcjpwYXNz');
  });
});
