import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { runCli } from '../helpers/cli.js';

// A base URL without /v2/ given with OAuth client credentials, against a service that wants them:
// the token request goes to a path the service does not have. That is the base URL's fault, and
// the one line on stderr says so, not that the credentials are wrong.

let service: ReferenceService;
let gateway: Server;
let gatewayRoot: string;
let reports: string;
beforeAll(async () => {
  service = await startReferenceService({ clientId: 'x', clientSecret: 'y' });
  // A service whose gateway checks tokens before routing: every path it lacks asks for a bearer token.
  gateway = createServer((request, response) => {
    request.resume();
    response.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'application/json' });
    response.end('{"message":"unauthorized"}');
  });
  await new Promise<void>((done) => gateway.listen(0, '127.0.0.1', done));
  gatewayRoot = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/`;
  reports = mkdtempSync(join(tmpdir(), 'print-conformance-oauth-base-'));
});
afterAll(async () => {
  await service.close();
  await new Promise((done) => gateway.close(done));
  rmSync(reports, { recursive: true, force: true });
});

const run = (...args: string[]) => runCli([...args, '--report-dir', reports, '--quiet']);
const HINT = /POST \S+\/oauth answered (404|401): the base URL is probably wrong: it should be the URL under which/;

describe('run with OAuth credentials and a base URL that misses /v2/', () => {
  it('blames the base URL when the service answers the token request 404', async () => {
    const root = service.baseUrl.replace(/v2\/$/, '');
    const result = await run('--base-url', root, '--client-id', 'x', '--client-secret', 'y');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(HINT);
    expect(result.stderr).toMatch(/answered 404/);
    expect(result.stderr).not.toMatch(/--client-id|credentials/);
  });

  it('blames the base URL when a token check before routing asks for a bearer token', async () => {
    const result = await run('--base-url', gatewayRoot, '--client-id', 'x', '--client-secret', 'y');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(HINT);
    expect(result.stderr).not.toMatch(/--client-id|credentials/);
  });

  it('still blames the credentials when the token endpoint refuses them', async () => {
    const result = await run('--base-url', service.baseUrl, '--client-id', 'x', '--client-secret', 'wrong');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/oauth answered 401 without an access_token; check --client-id and --client-secret/);
  });

  it('runs with the right base URL and credentials', async () => {
    const result = await run('--base-url', service.baseUrl, '--client-id', 'x', '--client-secret', 'y');
    expect(result.code).toBe(0);
  });
});
