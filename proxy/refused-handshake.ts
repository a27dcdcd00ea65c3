import type { RefusedHandshake } from '../src/control/refused-handshakes.js';

// A client that ends the TLS handshake of an intercepted host sees only that TLS failed ("self-
// signed certificate in certificate chain"), and the proxy sees no request: only the proxy can say
// what happened, and it says it in one line, with the likely cause and where the remedy is.

/** Alerts of a client that did not accept the certificate it was shown. */
const DISTRUST = new Set([
  'unknown ca',
  'bad certificate',
  'certificate unknown',
  'unsupported certificate',
  'certificate expired',
  'certificate revoked',
  'access denied',
]);

const REMEDY = 'see docs/interception.md, "A client that refuses the handshake"';

export function refusedHandshake(
  host: string,
  port: number,
  alert: string,
): { line: string; authority: string; handshake: RefusedHandshake } {
  const cause = DISTRUST.has(alert)
    ? `it does not trust the proxy's local CA: most likely it verifies against a CA bundle of its own (curl --cacert, Guzzle's verify, CURLOPT_CAINFO, a trust store) that the proxy's environment cannot reach; ${REMEDY}`
    : `the client did not complete the handshake (does it speak TLS through the tunnel, and trust the proxy's local CA?); ${REMEDY}`;
  const authority = port === 443 ? host : `${host}:${port}`;
  return {
    line: `a client refused the TLS handshake for ${authority} (its alert: ${alert}): ${cause}`,
    authority,
    handshake: { at: new Date().toISOString(), host, port, alert, cause },
  };
}
