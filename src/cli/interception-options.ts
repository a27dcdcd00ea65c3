import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ConnectTo, InterceptedHost } from '../../proxy/forward-door.js';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import { canonicalHostName } from '../http/host-names.js';
import { certificatesIn } from '../tls/trust.js';

// The options of interception, each checked before the proxy starts: a bad one is one line, exit 2.

const HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9._-]+)$/i;

/** A host as the proxy compares it (an international name given in Unicode is taken in punycode). */
function bare(host: string): string {
  return canonicalHostName(host);
}

/** Whether a host of an option is a name or an address (checked in its ASCII form). */
function isHost(host: string): boolean {
  const canonical = canonicalHostName(host);
  return canonical !== '' && !canonical.endsWith('.') && (HOST.test(canonical) || HOST.test(host));
}

function port(text: string, option: string, given: string): number {
  const value = Number(text);
  if (!/^\d{1,5}$/.test(text) || value < 1 || value > 65535)
    throw new UsageError(`${option} ${given}: ${JSON.stringify(text)} is not a port (1-65535)`);
  return value;
}

/** --connect-to HOST:PORT:HOST2:PORT2, curl's form (IPv6 addresses in brackets). */
export function parseConnectTo(given: string): ConnectTo {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+):(\d+):(\[[0-9a-f:.]+\]|[^:[\]]+):(\d+)$/i.exec(given);
  if (!match || !isHost(match[1] as string) || !isHost(match[3] as string))
    throw new UsageError(
      `--connect-to ${given}: expected HOST:PORT:HOST2:PORT2, e.g. test.printapi.nl:443:127.0.0.1:8443`,
    );
  return {
    host: bare(match[1] as string),
    port: port(match[2] as string, '--connect-to', given),
    toHost: bare(match[3] as string),
    toPort: port(match[4] as string, '--connect-to', given),
  };
}

/** --intercept HOST[:PORT]: any port without one. */
export function parseIntercept(given: string): InterceptedHost {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d+))?$/i.exec(given);
  if (!match || !isHost(match[1] as string))
    throw new UsageError(`--intercept ${given}: expected HOST or HOST:PORT, e.g. live.printapi.nl:443`);
  return {
    host: bare(match[1] as string),
    ...(match[2] === undefined ? {} : { port: port(match[2], '--intercept', given) }),
  };
}

/** The certificates of --target-ca FILE (PEM). */
export function readTargetCa(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--target-ca ${path}: ${fileProblem(error)}`);
  }
  const found = certificatesIn(text);
  if (found.length === 0)
    throw new UsageError(`--target-ca ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  for (const [index, pem] of found.entries()) {
    try {
      new X509Certificate(pem);
    } catch {
      throw new UsageError(`--target-ca ${path}: certificate ${index + 1} is no valid X.509 certificate`);
    }
  }
  return found;
}
