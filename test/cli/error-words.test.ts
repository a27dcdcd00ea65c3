import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';

// Mistakes a new user makes with the service's URL, told in words that say what to change: one
// line on stderr, exit 2, no OpenSSL dump and no blame on the credentials.

let service: ReferenceService;
let reports: string;
beforeAll(async () => {
  service = await startReferenceService();
  reports = mkdtempSync(join(tmpdir(), 'print-conformance-words-'));
});
afterAll(async () => {
  await service.close();
  rmSync(reports, { recursive: true, force: true });
});

const run = (...args: string[]) => runCli([...args, '--report-dir', reports, '--quiet']);

describe('a wrong service URL, in words', () => {
  it('https:// to a plain-HTTP port says to use http://', async () => {
    const result = await run('--base-url', service.baseUrl.replace('http://', 'https://'));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^print-conformance: cannot reach the service: POST https:\S+ failed \(127\.0\.0\.1:\d+ answered plain HTTP to a TLS handshake: use http:\/\/ instead of https:\/\/\); check --base-url\n$/,
    );
    expect(result.stderr).not.toMatch(/SSL routines|openssl/i);
  });

  it('a base URL without /v2/ is called probably wrong, not a matter of credentials', async () => {
    const root = service.baseUrl.replace(/v2\/$/, '');
    const placed = await run('--base-url', root);
    expect(placed.code).toBe(2);
    expect(placed.stderr).toMatch(
      /^print-conformance: POST \S+\/orders answered 404 \(.*\): the base URL is probably wrong: it should be the URL under which orders, checkout\/… and files\/… live/,
    );
    expect(placed.stderr).not.toMatch(/credentials/);
    expect(placed.stderr.split('\n')).toHaveLength(2);

    const oauth = await run('--base-url', root, '--client-id', 'id', '--client-secret', 'secret');
    expect(oauth.code).toBe(2);
    expect(oauth.stderr).toMatch(/POST \S+\/oauth answered 404: the base URL is probably wrong/);
    expect(oauth.stderr).not.toMatch(/--client-id|credentials/);
  });

  it('nothing listening is said as such', async () => {
    const result = await run('--base-url', 'http://127.0.0.1:1/v2/');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /failed \(connection refused: nothing listens on 127\.0\.0\.1:1\); check --base-url\n$/,
    );
  });
});

describe('a missing file, in words', () => {
  it('says "no such file", not ENOENT, for a recording, an order body and a config file', async () => {
    const missing = join(reports, 'missing');
    const cases: [string[], string][] = [
      [['validate', `${missing}.ndjson`], `cannot read ${missing}.ndjson: no such file`],
      [
        ['--order-body', `${missing}.json`, '--base-url', service.baseUrl],
        `--order-body ${missing}.json: no such file`,
      ],
      [['rules', '--config', `${missing}.config.json`], `config file ${missing}.config.json: no such file`],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(`print-conformance: ${message}\n`);
    }
  });
});
