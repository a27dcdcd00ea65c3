import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProxyHandle, type ProxyOptions, startProxy } from '../../proxy/proxy-server.js';
import type { RecordedExchange } from '../../proxy/recorder.js';
import type { Dialect } from '../../src/reference/dialect.js';
import { type ReferenceOptions, type ReferenceService, startReferenceService } from '../../src/reference/service.js';

/** A reference service (or a variant of it) with the proxy in front, recording to a temp folder. */
export async function proxiedService(
  options: { dialect?: Partial<Dialect>; service?: ReferenceOptions; proxy?: Partial<ProxyOptions> } = {},
) {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-proxy-'));
  const service: ReferenceService = await startReferenceService({ ...options.service, dialect: options.dialect });
  const recordFile = join(folder, 'traffic.ndjson');
  const harFile = join(folder, 'traffic.har');
  const lines: string[] = [];
  const proxy: ProxyHandle = await startProxy({
    target: service.baseUrl,
    recordFile,
    harFile,
    log: (line) => lines.push(line),
    ...options.proxy,
  });
  let closed = false;
  const close = async () => {
    if (!closed) {
      closed = true;
      await proxy.close();
    }
  };
  return {
    folder,
    service,
    proxy,
    recordFile,
    harFile,
    log: lines,
    close,
    /** Stops the proxy (flushing the recording) and returns what it recorded. */
    async recorded(): Promise<RecordedExchange[]> {
      await close();
      return readFileSync(recordFile, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    },
    async dispose() {
      await close();
      await service.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * Places an order through the proxy at `proxyUrl` and sets its checkout up with a ReturnUrl of
 * four characters: a client breaking checkout.return-url.length. The answer, unread.
 */
export async function setUpWithShortReturnUrl(proxyUrl: string): Promise<Response> {
  const order = (await (await fetch(`${proxyUrl}orders`, { method: 'POST' })).json()) as {
    checkout: { setupUrl: string };
  };
  return fetch(order.checkout.setupUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ returnUrl: 'a://' }),
  });
}
