import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

// Whether a request's Host names this server. A web page on another name that resolves to this
// machine (DNS rebinding) must not be able to read or drive a local server through the browser,
// so names are allowed only when they are IP addresses, localhost, the listening host, or named
// by the user (the proxy's and the reference service's --allowed-host, serve's --public-url).

/**
 * A host name as DNS compares it, the one form every match of a host goes through (Host checks,
 * CONNECT and absolute-form targets, --intercept, --connect-to, --allowed-host): lower case,
 * without the trailing dot of a fully qualified name ("svc.test." is "svc.test"), international
 * names in their ASCII (punycode) form, IPv6 addresses without brackets. "" when it is no name.
 */
export function canonicalHostName(name: string): string {
  let bare = name.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) === 6) return bare.toLowerCase();
  // One trailing dot is the root of DNS; a name that ends in two is no name.
  if (bare.endsWith('.')) bare = bare.slice(0, -1);
  if (/^[\x21-\x7e]*$/.test(bare)) return bare.toLowerCase();
  return domainToASCII(bare);
}

/** A Host header's name (canonical: canonicalHostName) and port, or undefined when it is no plain host[:port]. */
export function parseHost(value: string): { name: string; port?: string } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(value);
  if (!match?.[1]) return undefined;
  const name = canonicalHostName(match[1]);
  if (!name || name.endsWith('.')) return undefined;
  return { name: match[1].startsWith('[') ? `[${name}]` : name, port: match[2] };
}

/**
 * Whether `value` (a Host header; none at all is HTTP/1.0's and allowed) names this server.
 * `allowed` names may start with "." for a domain and its subdomains; "all" allows any name.
 */
export function hostAllowed(value: string | undefined, listenHost: string, allowed: readonly string[]): boolean {
  if (value === undefined) return true;
  const host = parseHost(value);
  if (!host) return false;
  const bare = host.name.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0 || host.name === 'localhost' || host.name.endsWith('.localhost')) return true;
  if (host.name === canonicalHostName(listenHost)) return true;
  return allowed.some((name) => {
    if (name.toLowerCase() === 'all') return true;
    if (name.startsWith('.')) return host.name.endsWith(`.${canonicalHostName(name.slice(1))}`);
    return canonicalHostName(name) === host.name;
  });
}

/** Whether an address is this machine's own (127.0.0.0/8, ::1, and those as IPv4-mapped IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const bare = address.startsWith('::ffff:') ? address.slice(7) : address;
  return bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}
