import { formatOfMediaType } from './document.js';
import { type Exchange, header, mediaType } from './exchange.js';
import { perUrl } from './url-memo.js';

// Which exchanges of a traffic are the interface. Only GET and POST requests under the service's
// base URL whose path starts with `checkout` or `files` are judged: the well-shaped ones
// (`checkout/{code}`, `files/{code}`) by every rule, the others by client.given-urls alone. The
// order endpoints are read for the URLs they give. Everything else a browser or a proxy sees
// (preflights, the shop's pages, other hosts) is counted apart and judged by no rule.

export type Scope =
  /** `urlPath`: the request URL's path, read once here for the rules that compare it. */
  | { kind: 'interface'; operation: 'checkout' | 'files'; code: string; urlPath: string }
  /** Under checkout or files, but not the shape of a URL the order endpoints give. */
  | { kind: 'misaddressed'; operation: 'checkout' | 'files'; path: string; urlPath: string }
  /** POST orders or GET orders/{id}: read for the URLs the order gives. */
  | { kind: 'order'; id?: string }
  | { kind: 'outside'; reason: string };

export const NOT_THE_INTERFACE = {
  preflight: 'CORS preflight (OPTIONS)',
  method: 'a method the interface does not have',
  host: 'another host',
  path: 'a path outside the interface',
  page: 'a page (text/html)',
} as const;

interface Base {
  origin: string;
  /** The base's path, ending in "/". */
  path: string;
}

const OPERATIONS = new Set(['checkout', 'files']);

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

interface Location {
  origin: string;
  pathname: string;
  /** The path's segments, empty ones skipped as a server routing the path would. */
  segments: readonly string[];
}

/** Origin and path of a request URL; undefined when it is no URL. */
const locationOf = perUrl((url: string): Location | undefined => {
  const parsed = parse(url);
  return parsed
    ? { origin: parsed.origin, pathname: parsed.pathname, segments: segmentsOf(parsed.pathname) }
    : undefined;
});

/** The path's segments, empty ones skipped as a server routing the path would. */
function segmentsOf(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/** Whether the answer (or what the request asked for) is a page for a browser, not a document. */
function isPage(exchange: Exchange): boolean {
  const answered = mediaType(header(exchange.response?.headers, 'content-type'));
  if (answered === 'text/html' || answered === 'application/xhtml+xml') return true;
  const accept = header(exchange.request.headers, 'accept') ?? '';
  return accept.startsWith('text/html') && answered === undefined;
}

/** Whether the request is a browser's navigation: a GET whose Accept puts text/html first. */
function asksForPage(exchange: Exchange): boolean {
  if (exchange.request.method.toUpperCase() !== 'GET') return false;
  return (header(exchange.request.headers, 'accept') ?? '').trimStart().startsWith('text/html');
}

/** Whether the exchange speaks JSON or XML on either side: the mark of an API call, not a page. */
function speaksDocuments(exchange: Exchange): boolean {
  const sent = formatOfMediaType(mediaType(header(exchange.request.headers, 'content-type')));
  const answered = formatOfMediaType(mediaType(header(exchange.response?.headers, 'content-type')));
  const accept = header(exchange.request.headers, 'accept') ?? '';
  return sent !== undefined || answered !== undefined || /json|xml/i.test(accept.split(',')[0] ?? '');
}

/**
 * The service's base, given (`--base-url`, the proxy's target) or learnt from the traffic: the
 * part of the first API call's URL before its `orders`, `checkout` or `files` segment. A given
 * base that lies above the interface (a target of https://host/ for a service under /v2/) is the
 * prefix within which the base is learnt, so that such a proxy still judges its traffic.
 */
export class ServiceBase {
  private base: Base | undefined;
  private readonly within: Base | undefined;
  /** How many path segments the base has (`countedBase`'s): those of a URL under it come first. */
  private countedBase: Base | undefined;
  private baseSegments = 0;

  constructor(given?: string) {
    const url = given === undefined ? undefined : parse(given);
    if (url) this.within = { origin: url.origin, path: url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/` };
    // A base given with a path of its own (https://host/v2/) is the base: a call deeper under it
    // that has a resource's name in its path (/v2/shop/files/logo) must not move it. Given as an
    // origin alone, the base is still learnt from the traffic.
    if (this.within && this.within.path !== '/') this.base = this.within;
  }

  get known(): string | undefined {
    const base = this.base ?? this.within;
    return base ? `${base.origin}${base.path}` : undefined;
  }

  scopeOf(exchange: Exchange): Scope {
    const method = exchange.request.method.toUpperCase();
    if (method === 'OPTIONS' && header(exchange.request.headers, 'access-control-request-method') !== undefined)
      return { kind: 'outside', reason: NOT_THE_INTERFACE.preflight };
    const url = locationOf(exchange.request.url);
    if (!url) return { kind: 'outside', reason: NOT_THE_INTERFACE.path };
    if (method !== 'GET' && method !== 'POST') return { kind: 'outside', reason: NOT_THE_INTERFACE.method };
    const within = this.within;
    if (within && url.origin !== within.origin) return { kind: 'outside', reason: NOT_THE_INTERFACE.host };
    if (within && !url.pathname.startsWith(within.path)) return { kind: 'outside', reason: NOT_THE_INTERFACE.path };
    if (!this.base) this.learn(url, exchange);
    const base = this.base;
    if (!base) return { kind: 'outside', reason: isPage(exchange) ? NOT_THE_INTERFACE.page : NOT_THE_INTERFACE.path };
    if (url.origin !== base.origin) return { kind: 'outside', reason: NOT_THE_INTERFACE.host };
    if (!url.pathname.startsWith(base.path)) return { kind: 'outside', reason: NOT_THE_INTERFACE.path };
    // The path below the base: its segments follow the base's, which ends in "/".
    if (this.countedBase !== base) {
      this.countedBase = base;
      this.baseSegments = segmentsOf(base.path).length;
    }
    const skip = this.baseSegments;
    const below = url.segments.length - skip;
    const first = url.segments[skip]?.toLowerCase();
    if (first === 'orders') {
      if (method === 'POST' && below === 1) return { kind: 'order' };
      if (method === 'GET' && below === 2) return { kind: 'order', id: url.segments[skip + 1] as string };
      return { kind: 'outside', reason: NOT_THE_INTERFACE.path };
    }
    if (first === undefined || !OPERATIONS.has(first)) return { kind: 'outside', reason: NOT_THE_INTERFACE.path };
    const operation = first as 'checkout' | 'files';
    // An HTML answer here is a framework's error page to a call of the interface, judged as one;
    // only a browser's GET that asked for a page is one.
    if (asksForPage(exchange)) return { kind: 'outside', reason: NOT_THE_INTERFACE.page };
    if (below === 2)
      return { kind: 'interface', operation, code: url.segments[skip + 1] as string, urlPath: url.pathname };
    return { kind: 'misaddressed', operation, path: url.segments.slice(skip).join('/'), urlPath: url.pathname };
  }

  /**
   * Takes the base from an API call under orders, checkout or files (one that speaks JSON or XML,
   * or has the shape of a given URL); pages and other calls teach nothing.
   */
  private learn(url: Location, exchange: Exchange): void {
    if (isPage(exchange)) return;
    const start = this.within ? this.within.path.length - 1 : 0;
    const segments = url.pathname.slice(start).split('/');
    const at = segments.findIndex((segment, index) => {
      const name = segment.toLowerCase();
      return index > 0 && (name === 'orders' || OPERATIONS.has(name));
    });
    if (at < 0) return;
    const rest = segments.slice(at + 1).filter((segment) => segment !== '');
    if (!speaksDocuments(exchange) && rest.length !== 1) return;
    this.base = { origin: url.origin, path: `${url.pathname.slice(0, start)}${segments.slice(0, at).join('/')}/` };
  }
}
