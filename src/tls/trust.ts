import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';

// Which certificate authorities a connection to a service trusts, and the one file that runtimes
// taking a single bundle (curl, PHP, Python requests, OpenSSL) are given: the system's CAs and the
// local one, so that a client behind the proxy still verifies every other host as before.

/** Where Linux distributions and macOS keep the system's CA bundle (Debian, RHEL, SUSE, Alpine/macOS). */
const SYSTEM_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

let system: string[] | undefined;

/**
 * The system's CA certificates: those the platform trusts (Node 22.15+ reads its store), else the
 * first bundle file found, else the Mozilla store built into Node.
 */
export function systemCertificates(): string[] {
  if (system) return system;
  const fromNode = (tls as { getCACertificates?: (kind: string) => string[] }).getCACertificates;
  if (fromNode) {
    try {
      const found = fromNode('system');
      if (found.length > 0) system = found;
    } catch {
      // An older store API: the files below serve.
    }
  }
  if (!system) {
    for (const path of SYSTEM_BUNDLES) {
      try {
        const found = readFileSync(path, 'utf8').match(PEM_CERTIFICATE);
        if (found && found.length > 0) {
          system = found;
          break;
        }
      } catch {
        // Not this distribution's place.
      }
    }
  }
  system ??= [...tls.rootCertificates];
  return system;
}

/** Those NODE_EXTRA_CA_CERTS names: Node adds them to its default store, which a context of its own replaces. */
function nodeExtraCertificates(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  try {
    return certificatesIn(readFileSync(file, 'utf8'));
  } catch {
    // Node itself warns at start about a file it cannot read.
    return [];
  }
}

/** The certificates of a PEM file given by the user (--target-ca), or why there are none. */
export function certificatesIn(text: string): string[] {
  return text.match(PEM_CERTIFICATE) ?? [];
}

/** One PEM bundle: the system's CAs, then the given ones. */
export function trustBundle(extra: readonly string[]): string {
  return `${[...systemCertificates(), ...extra].map((pem) => pem.trim()).join('\n')}\n`;
}

/**
 * What a connection to a service verifies against: Node's own store, the system's and the extra
 * CAs (the local CA, --target-ca). Made once: a context holding hundreds of CAs takes milliseconds.
 */
export function upstreamTrust(extra: readonly string[]): tls.SecureContext {
  const ca = [...new Set([...tls.rootCertificates, ...systemCertificates(), ...nodeExtraCertificates(), ...extra])];
  return tls.createSecureContext({ ca });
}
