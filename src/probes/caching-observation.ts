import { type Exchange, header } from '../validate/exchange.js';

// observe.caching: the caching headers of a GET checkout answer, and what a cache between client
// and service may make of them (RFC 9111). The description is silent on caching, so this is never
// a verdict; but a Status a cache keeps is one a client may read stale after the payment, and one
// kept without Vary: Accept may come back in the other format, so the observation names both.

const CACHING_HEADERS = ['cache-control', 'expires', 'etag', 'last-modified', 'vary', 'age'] as const;

/** The directives of a Cache-Control value, by lower-case name (a value without "=" is true). */
function directives(value: string | undefined): Map<string, string | true> {
  const found = new Map<string, string | true>();
  for (const part of (value ?? '').split(',')) {
    const [name, ...rest] = part.split('=');
    const key = name?.trim().toLowerCase();
    if (key) found.set(key, rest.length > 0 ? rest.join('=').trim().replace(/^"|"$/g, '') : true);
  }
  return found;
}

const seconds = (value: string | true | undefined) => (typeof value === 'string' ? Number(value) : Number.NaN);

/** How long, and by what, a shared or private cache may keep the answer without asking again. */
function keptFor(exchange: Exchange): { seconds: number; by: string } | 'not kept' | 'revalidated' {
  const headers = exchange.response?.headers;
  const control = directives(header(headers, 'cache-control'));
  if (control.has('no-store')) return 'not kept';
  if (control.has('no-cache')) return 'revalidated';
  for (const name of ['s-maxage', 'max-age']) {
    const value = seconds(control.get(name));
    if (Number.isFinite(value)) return value > 0 ? { seconds: value, by: `${name}=${value}` } : 'revalidated';
  }
  const expires = header(headers, 'expires');
  if (expires !== undefined) {
    const date = Date.parse(header(headers, 'date') ?? '') || Date.now();
    const left = Math.round((Date.parse(expires) - date) / 1000);
    return Number.isFinite(left) && left > 0 ? { seconds: left, by: `Expires ${expires}` } : 'revalidated';
  }
  // Without explicit freshness, a cache may guess one from Last-Modified (RFC 9111 §4.2.2).
  if (header(headers, 'last-modified') !== undefined)
    return { seconds: Number.NaN, by: 'Last-Modified alone (a heuristic freshness)' };
  return 'not kept';
}

/** What the caching headers of a GET checkout answer say, and the stale Status they allow, if any. */
export function cachingOf(exchange: Exchange, formats: number): Record<string, string> {
  const headers = exchange.response?.headers;
  const seen: Record<string, string> = {};
  for (const name of CACHING_HEADERS) {
    const value = header(headers, name);
    if (value !== undefined) seen[name] = value;
  }
  const kept = keptFor(exchange);
  const varyAccept = (header(headers, 'vary') ?? '')
    .split(',')
    .some((name) => ['accept', '*'].includes(name.trim().toLowerCase()));
  if (kept === 'not kept') seen.verdict = 'no cache keeps it: every GET reads the current Status';
  else if (kept === 'revalidated') seen.verdict = 'a cache asks the service again before each use';
  else {
    const how = Number.isFinite(kept.seconds) ? `for ${kept.seconds} s` : 'for a time of its choosing';
    const stale = `a cache may keep Status ${how} (${kept.by}): a client may read it stale after the payment`;
    seen.verdict =
      formats > 1 && !varyAccept
        ? `${stale}, and without Vary: Accept a JSON request may get the XML it kept, or the reverse`
        : stale;
  }
  return seen;
}
