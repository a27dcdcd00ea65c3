import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientTestVerdict } from '../../src/findings/types.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { type LocalCa, loadOrCreateCa } from '../../src/tls/local-ca.js';
import { ROOT, runCli } from './cli.js';

// The real host (https://test.printapi.nl/v2/) stood in for by the reference service over HTTPS,
// with a certificate from a local CA of the test's own, and `proxy -- COMMAND` sessions in front
// of it (--connect-to), as a client team runs its unmodified client. Another HTTPS host
// (elsewhere.test) answers "pong" through a blind tunnel.

export const CLIENTS = join(ROOT, 'test', 'fixtures', 'clients');
export const TARGET = 'https://test.printapi.nl/v2/';
export const ELSEWHERE = 'elsewhere.test';

export interface Session {
  code: number | null;
  stdout: string;
  stderr: string;
  results: {
    summary: Record<string, number>;
    rules: { id: string; status: string }[];
    clientTests?: ClientTestVerdict[];
  };
  recording: { request: { url: string }; response?: { status: number }; error?: string; violations: unknown[] }[];
}

export interface StandIn {
  folder: string;
  ca: LocalCa;
  service: ReferenceService;
  /** One `proxy -- COMMAND` session in front of the stand-in service. */
  /** `options`: more of the proxy's options, before `--`. */
  behindProxy(command: string[], name: string, env?: NodeJS.ProcessEnv, options?: string[]): Promise<Session>;
  close(): Promise<void>;
}

export async function startStandIn(): Promise<StandIn> {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-interception-'));
  const ca = await loadOrCreateCa(join(folder, 'ca'));
  const service = await startReferenceService({
    tls: await ca.maker.issue(['test.printapi.nl']),
    publicUrl: TARGET,
    clientId: 'shop',
    clientSecret: 'shop-secret-value',
  });
  // Another HTTPS host of the client's, with a certificate the client trusts (the bundle holds the local CA).
  const { certPem: cert, keyPem: key } = await ca.maker.issue([ELSEWHERE]);
  const elsewhere: Server = createServer({ cert, key }, (_, response) => {
    response.end('pong');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  return {
    folder,
    ca,
    service,
    async behindProxy(command, name, env = {}, options = []) {
      const json = join(folder, `${name}.json`);
      const record = join(folder, `${name}.ndjson`);
      const servicePort = new URL(service.baseUrl).port;
      const elsewherePort = (elsewhere.address() as AddressInfo).port;
      const { code, stdout, stderr } = await runCli(
        [
          'proxy',
          '--target',
          TARGET,
          '--connect-to',
          `test.printapi.nl:443:127.0.0.1:${servicePort}`,
          '--connect-to',
          `${ELSEWHERE}:443:127.0.0.1:${elsewherePort}`,
          '--ca-dir',
          ca.dir,
          '--json-report',
          json,
          '--record',
          record,
          ...options,
          '--',
          ...command,
        ],
        { env: { SHOP_CLIENT_ID: 'shop', SHOP_CLIENT_SECRET: 'shop-secret-value', TMPDIR: folder, ...env } },
      );
      const recording = existsSync(record)
        ? readFileSync(record, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line))
        : [];
      const results = existsSync(json) ? JSON.parse(readFileSync(json, 'utf8')) : { summary: {}, rules: [] };
      return { code, stdout, stderr, results, recording };
    },
    async close() {
      await service.close();
      await new Promise((resolve) => elsewhere.close(resolve));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
