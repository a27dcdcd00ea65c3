import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedExchange } from '../../proxy/recorder.js';
import { exchangeOfHarEntry } from '../../src/recording/har.js';
import { recordingKind } from '../../src/recording/read-exchanges.js';
import { runCli } from '../helpers/cli.js';
import { proxiedService } from '../helpers/proxy-fixture.js';
import { rawExchange } from '../helpers/raw-http.js';

// A recording keeps what was sent as it was sent: header fields of any name, and a HAR file is
// read as HAR whatever member of its object comes first.

describe('recording fidelity', () => {
  it('records header fields named constructor and __proto__ as the fields they are', async () => {
    const setup = await proxiedService();
    try {
      await rawExchange(
        setup.proxy.url,
        'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConstructor: built\r\n__proto__: polluted\r\nConnection: close\r\n\r\n',
      );
      const [recorded] = (await setup.recorded()) as RecordedExchange[];
      expect(recorded?.request.headers.constructor).toBe('built');
      expect(Object.getOwnPropertyDescriptor(recorded?.request.headers, '__proto__')?.value).toBe('polluted');
    } finally {
      await setup.dispose();
    }
  });

  it('reads such fields from a HAR entry as fields too', () => {
    const exchange = exchangeOfHarEntry({
      startedDateTime: '2026-01-01T00:00:00.000Z',
      request: {
        method: 'GET',
        url: 'http://s.test/v2/checkout/c',
        headers: [
          { name: 'constructor', value: 'built' },
          { name: '__proto__', value: 'polluted' },
        ],
      },
      response: { status: 200, headers: [] },
    });
    expect(exchange.request.headers.constructor).toBe('built');
    expect(Object.getOwnPropertyDescriptor(exchange.request.headers, '__proto__')?.value).toBe('polluted');
    expect(Object.getPrototypeOf(exchange.request.headers)).toBeNull();
  });

  it('tells a HAR file from NDJSON whatever member of its object comes first', () => {
    const entries = '"entries":[{"request":{"method":"GET","url":"http://s.test/v2/checkout/c"}}]';
    expect(recordingKind(`{"log":{${entries}}}`)).toBe('har');
    expect(recordingKind(`{"comment":"from a tool","log":{"version":"1.2",${entries}}}`)).toBe('har');
    expect(recordingKind(`{\n  "_meta": {"request": 1, "log": 2},\n  "log": {\n    ${entries}\n  }\n}`)).toBe('har');
    expect(recordingKind('{"id":"x","request":{"method":"GET","url":"http://s.test/v2/checkout/c"}}\n{"id":"y"}')).toBe(
      'ndjson',
    );
    expect(recordingKind('{"request":{"method":"GET","headers":{"log":"x"}}}')).toBe('ndjson');
    // One JSON document over several lines is no NDJSON, though it may hold an exchange's members.
    expect(recordingKind('{\n  "tool": "print-conformance",\n  "rules": []\n}')).toBe('document');
    expect(recordingKind('{\n  "request": {"method": "GET", "url": "http://s.test/v2/checkout/c"}\n}')).toBe(
      'document',
    );
    expect(recordingKind('[\n  {"request": {}}\n]')).toBe('document');
    expect(recordingKind('{"request":{}}\r\n{"request":{}}\r\n')).toBe('ndjson');
  });

  it('refuses a JSON document that is no recording in one line, naming what it is', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-kind-'));
    try {
      const file = join(folder, 'results.json');
      writeFileSync(file, JSON.stringify({ tool: 'print-conformance', rules: [] }, null, 2));
      const result = await runCli(['validate', file, '--report-dir', join(folder, 'r')]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `print-conformance: ${file} is not a recording: it is one JSON document over several lines, where a recording is a HAR 1.2 file or NDJSON (one exchange per line, as proxy --record writes); results.json files are combined with merge\n`,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
