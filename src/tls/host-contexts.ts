import { createSecureContext, type SecureContext } from 'node:tls';
import type { CertificateMaker } from './x509.js';

// TLS contexts for the hosts the proxy stands in for, each with a certificate from the local CA,
// made when a client first asks for that host and kept for the process's life. The hosts are the
// interface's (the target's and those named by --intercept), so the cache stays small.

export class HostContexts {
  private readonly made = new Map<string, Promise<SecureContext>>();

  constructor(private readonly maker: CertificateMaker) {}

  /** A context whose certificate names `host` (a DNS name or an IP address). */
  contextFor(host: string): Promise<SecureContext> {
    const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    let context = this.made.get(name);
    if (!context) {
      context = this.maker
        .issue([name])
        .then(({ certPem, keyPem }) => createSecureContext({ cert: certPem, key: keyPem, minVersion: 'TLSv1.2' }));
      // A failure is not kept: the next client asks again.
      context.catch(() => this.made.delete(name));
      this.made.set(name, context);
    }
    return context;
  }
}
