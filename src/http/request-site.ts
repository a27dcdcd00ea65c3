import { canonicalHostName, parseHost } from './host-names.js';

// Whether a request comes from a page of another site in the user's browser, which must not drive
// a local server through it (a cross-site form post, a fetch with no-cors). Browsers say where a
// request comes from in Sec-Fetch-Site, older ones (and some privacy settings) only in Origin; a
// client that sends neither (curl, a test, an HTTP library) is no browser page.

export interface SiteHeaders {
  'sec-fetch-site'?: string;
  origin?: string;
  host?: string;
}

/** Host and port as compared: the name canonical, the port when one is known. */
function place(name: string, port: string | undefined): { name: string; port: string | undefined } {
  return { name: canonicalHostName(name), port: port || undefined };
}

function samePlace(a: { name: string; port?: string }, b: { name: string; port?: string }): boolean {
  return a.name !== '' && a.name === b.name && (a.port === undefined || b.port === undefined || a.port === b.port);
}

/**
 * True when the request comes from another site: Sec-Fetch-Site says so, or, without it, Origin
 * names another host than the request's Host (or `ownHosts`, host[:port] names the server also
 * goes by). `Origin: null` (a sandboxed frame, a redirect across sites) names no page of ours.
 */
export function fromAnotherSite(headers: SiteHeaders, ownHosts: readonly (string | undefined)[] = []): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = headers.origin;
  if (origin === undefined) return false;
  let from: { name: string; port: string | undefined };
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return true;
    from = place(url.hostname, url.port || (url.protocol === 'https:' ? '443' : '80'));
  } catch {
    return true;
  }
  const own = [headers.host, ...ownHosts].flatMap((value) => {
    const host = value === undefined ? undefined : parseHost(value);
    return host ? [place(host.name, host.port)] : [];
  });
  return !own.some((host) => samePlace(host, from));
}
