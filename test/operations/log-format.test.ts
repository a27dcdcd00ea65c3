import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLog } from '../../src/operations/json-log.js';
import { OperationsLog } from '../../src/operations/log.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { startListeningCli } from '../helpers/cli.js';
import { setUpWithShortReturnUrl } from '../helpers/proxy-fixture.js';

// --log-format: text is the tool's lines as they have always been; json is one object per line,
// with named events, redacted as the text is.

let service: ReferenceService;
let folder: string;
beforeAll(async () => {
  service = await startReferenceService();
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-log-format-'));
});
afterAll(async () => {
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A proxy session with one broken exchange, stopped by SIGTERM: what it printed. */
async function brokenSession(extra: string[]) {
  const proxy = await startListeningCli([
    'proxy',
    '--target',
    service.baseUrl,
    '--report-dir',
    join(folder, 'reports'),
    ...extra,
  ]);
  const bad = await setUpWithShortReturnUrl(proxy.url);
  expect(bad.status).toBe(400);
  // The log names the path at the target (the proxy root stands for its /v2/).
  const path = `/v2${new URL(bad.url).pathname}`;
  return { ...(await proxy.stop()), path, url: proxy.url };
}

describe('--log-format', () => {
  it('json: every stderr line is one object with time, level, event and message, and the events are named', async () => {
    const { stderr, stdout, code, path, url } = await brokenSession(['--log-format', 'json']);
    expect(code).toBe(1);
    // stdout is as in text mode: the listening line, the verdict table, the summary.
    expect(stdout).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\/\n/);
    const lines = stderr.trim().split('\n');
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const record of records) {
      expect(Object.keys(record)).toEqual(expect.arrayContaining(['time', 'level', 'event', 'message']));
      expect(new Date(record.time as string).toISOString()).toBe(record.time);
    }
    const events = records.map((record) => record.event);
    expect(events[0]).toBe('listening');
    expect(events).toEqual(expect.arrayContaining(['listening', 'exchange.broken', 'stopping', 'summary', 'stopped']));
    expect(events.indexOf('stopping')).toBeLessThan(events.indexOf('summary'));
    expect(events.at(-1)).toBe('stopped');
    expect(records[0]).toMatchObject({ level: 'info', url });
    expect(records.find((record) => record.event === 'exchange.broken')).toMatchObject({
      level: 'warn',
      method: 'POST',
      path,
      status: 400,
      rules: ['checkout.return-url.length'],
      message: `POST ${path} → 400  checkout.return-url.length (request)`,
    });
    expect(records.find((record) => record.event === 'summary')).toMatchObject({
      exchanges: 2,
      failedRules: ['checkout.return-url.length'],
      exitCode: 1,
    });
    expect(records.at(-1)).toMatchObject({ exitCode: 1 });
  });

  it('json on serve: listening, stopping with its signal, stopped', async () => {
    const serve = await startListeningCli(['serve', '--log-format', 'json']);
    // Served once first: a signal the instant the line is out can come before serve listens for it.
    expect((await fetch(`${serve.url}orders`, { method: 'POST' })).status).toBe(201);
    const { stderr, code } = await serve.stop('SIGTERM');
    expect(code).toBe(0);
    const records = stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((record) => record.event)).toEqual(['listening', 'stopping', 'stopped']);
    expect(records[0]).toMatchObject({ url: serve.url, message: `listening on ${serve.url}` });
    expect(records[1]).toMatchObject({ signal: 'SIGTERM' });
    expect(records[2]).toMatchObject({ exitCode: 0 });
  });

  it('text (the default): stderr carries the lines it always has, and no JSON', async () => {
    const { stderr, path, url } = await brokenSession([]);
    expect(stderr).toBe(
      `print-conformance: live page and control API at ${url}__print-conformance/\n` +
        `POST ${path} → 400  checkout.return-url.length (request)\n`,
    );
  });

  it('json fields and messages are redacted by the writer the command gives', () => {
    const out = new PassThrough();
    const log = new OperationsLog({
      text: () => {
        throw new Error('json mode writes no text line');
      },
      json: jsonLog(out),
      redact: (text) => text.replaceAll('s3cret', '[Filtered]'),
    });
    log.webhookTry('webhook POST https://shop.test/hook?key=s3cret: try 1 of 5: 200 in 3 ms', {
      url: 'https://shop.test/hook?key=s3cret',
      try: 1,
      of: 5,
      outcome: 'delivered',
      status: 200,
      durationMs: 3,
    });
    log.recordingRotated('recording rotated', { file: 'traffic.ndjson', rotatedTo: 'traffic-20261128T172900Z.ndjson' });
    log.recordingFailed('cannot write traffic.ndjson: ENOSPC', { reason: 'ENOSPC', exchange: 12 });
    // Every chunk written so far: read() may give one chunk at a time (Node.js 26 does).
    let text = '';
    for (let chunk = out.read(); chunk !== null; chunk = out.read()) text += String(chunk);
    expect(text).not.toContain('s3cret');
    const records = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map((record) => record.event)).toEqual(['webhook.try', 'recording.rotated', 'recording.failed']);
    expect(records[0]).toMatchObject({ url: 'https://shop.test/hook?key=[Filtered]', outcome: 'delivered' });
    expect(records[2]).toMatchObject({ level: 'error', exchange: 12 });
  });

  it('text: events new with json print nothing, and the others print their line as given', () => {
    const lines: string[] = [];
    const log = new OperationsLog({ text: (line) => lines.push(line) });
    log.listening({ url: 'http://127.0.0.1:1/' });
    log.stopping();
    log.summary('1 passed', { passed: 1 });
    log.stopped({ exitCode: 0 });
    log.handshakeRefused('a client refused the TLS handshake', { host: 'h', port: 443, alert: 'unknown ca' });
    log.line('print-conformance: something');
    expect(lines).toEqual(['a client refused the TLS handshake', 'print-conformance: something']);
  });
});
