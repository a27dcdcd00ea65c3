import { isIP } from 'node:net';

// Whether a request's Host names this server. A web page on another name that resolves to this
// machine (DNS rebinding) must not be able to read or drive a local server through the browser,
// so names are allowed only when they are IP addresses, localhost, the listening host, or named
// by the user (the proxy's and the reference service's --allowed-host, serve's --public-url).

/** A Host header's name and port, or undefined when it is no plain host[:port]. */
export function parseHost(value: string): { name: string; port?: string } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(value);
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), port: match[2] };
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
  if (host.name === listenHost.toLowerCase()) return true;
  return allowed.some((name) => {
    const lower = name.toLowerCase();
    return lower === 'all' || lower === host.name || (lower.startsWith('.') && host.name.endsWith(lower));
  });
}

/** Whether an address is this machine's own (127.0.0.0/8, ::1, and those as IPv4-mapped IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const bare = address.startsWith('::ffff:') ? address.slice(7) : address;
  return bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}
