// A request that got no answer, said in words a user can act on. Node and undici report such
// failures as codes and OpenSSL's own dump ("…:SSL routines:ssl3_get_record:wrong version
// number:…"); the user needs to know which URL to change and how.

/** Certificate failures: the service is reached, but not trusted. */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

function codeOf(error: unknown): string | undefined {
  const own = (error as { code?: unknown }).code;
  const cause = (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof own === 'string' ? own : typeof cause === 'string' ? cause : undefined;
}

/** Why `url` could not be asked or answered, in one phrase. */
export function transportErrorText(error: unknown, url: string, timeoutMs: number): string {
  const { host, hostname } = new URL(url);
  const code = codeOf(error);
  const message = (error as Error)?.message ?? String(error);
  const seconds = `${Number((timeoutMs / 1000).toFixed(3))} s`;
  if (
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ||
    /wrong version number|packet length too long/i.test(message)
  )
    return `${host} answered plain HTTP to a TLS handshake: use http:// instead of https://`;
  if (code && UNTRUSTED.has(code))
    return `the TLS certificate of ${host} is not trusted (${code}); for a private CA start with NODE_EXTRA_CA_CERTS=ca.pem`;
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused: nothing listens on ${host}`;
    case 'ENOTFOUND':
      return `no such host: ${hostname}`;
    case 'EAI_AGAIN':
      return `the name ${hostname} could not be looked up (DNS did not answer)`;
    case 'CERT_HAS_EXPIRED':
      return `the TLS certificate of ${host} has expired`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `the TLS certificate of ${host} is for another name`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection to ${host}: it did not answer the connection attempt`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `no answer within ${seconds} (--timeout)`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `the answer stalled for ${seconds} (--timeout)`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `${host} closed the connection before answering`;
    case 'EPROTO':
      return `${host} broke off the TLS handshake (EPROTO)`;
    default:
      return `${message.split('\n')[0]}${code && !message.includes(code) ? ` (${code})` : ''}`;
  }
}
