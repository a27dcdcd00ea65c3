import { isTextualMediaType } from '../src/validate/document.js';
import type { Headers } from '../src/validate/exchange.js';
import { mediaType } from '../src/validate/exchange.js';
import type { MessageHead } from './http-parser.js';
import { fieldValues, headerRecord } from './message-head.js';

// Whether a request head is let through to the target, decided from the head alone: no socket,
// no state but the Host the connection was last allowed for.

export interface AdmissionContext {
  target: URL;
  targetBase: string;
  hostAllowed(value: string | undefined): boolean;
}

export interface AdmittedRequest {
  admitted: true;
  headers: Headers;
  host: string | undefined;
  /** The request's URL on the target, and the path (with query) to send it. */
  href: string;
  path: string;
}

export type Admission = AdmittedRequest | { admitted: false; status: number; body: string; log?: string };

/** Path and query characters a URL parser leaves as they are. */
const PLAIN_REQUEST_TARGET = /^[A-Za-z0-9\-._~!$&()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*)?$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;
export const REFUSED_PATH = '{"message":"print-conformance proxy: only paths of the target are forwarded"}';
const ONE_HOST = '{"message":"print-conformance proxy: a request needs exactly one Host"}';

/** Checks a request head: upgrades, Host, the request target. `allowedHost` passed before on this connection. */
export function admitRequest(head: MessageHead, context: AdmissionContext, allowedHost: string | undefined): Admission {
  if (head.upgrade) return { admitted: false, status: head.method === 'CONNECT' ? 405 : 501, body: '' };
  const headers = headerRecord(head.rawHeaders);
  const host = headers.host;
  if (host === undefined ? head.version !== '1.0' : fieldValues(head.rawHeaders, 'host').length > 1)
    return { admitted: false, status: 400, body: ONE_HOST };
  // Only origin-form requests ("/path"): the proxy is no open proxy and reaches only its target.
  if (!head.url.startsWith('/') || head.url.startsWith('//'))
    return { admitted: false, status: 400, body: REFUSED_PATH };
  // A connection keeps its Host from one request to the next: it is checked once.
  if (host !== allowedHost && !context.hostAllowed(host)) {
    return {
      admitted: false,
      status: 403,
      body: JSON.stringify({
        message: `print-conformance proxy: Host ${JSON.stringify(host)} is not a name of this proxy; allow it with --allowed-host`,
      }),
      log: `refused a request for Host ${JSON.stringify(host)}`,
    };
  }
  const disguised = disguisedPathPart(head.url);
  if (disguised)
    return {
      admitted: false,
      status: 400,
      body: JSON.stringify({ message: `print-conformance proxy: a path with ${disguised} is not forwarded` }),
    };
  const target = targetUrlOf(head.url, context);
  if (!target) return { admitted: false, status: 400, body: REFUSED_PATH };
  return { admitted: true, headers, host, ...target };
}

/** Only these can hide a dot segment or a separator; most paths have none of them. */
const MAY_DISGUISE = /[%;\\]/;
const ESCAPED_SEPARATOR = /%(?:2f|5c)/i;
/** How many rounds of percent-decoding a target might apply (one by mistake, one by design…). */
const DECODINGS = 3;

/**
 * What in a request path could climb out of the target's base path on a target that reads paths
 * its own way, or undefined. The proxy resolves plain dot segments ("/../") itself and refuses
 * those that climb; but a target may also decode escaped separators ("..%2f"), decode twice
 * ("%252e%252e"), read "\\" as "/", or take "..;/" (a dot segment with a path parameter, as Java
 * servers do) as "../". Such spellings have no use but to slip past a check, so, like Envoy's
 * rejection of escaped slashes, the proxy refuses them whatever they lead to.
 */
export function disguisedPathPart(requestTarget: string): string | undefined {
  const query = requestTarget.indexOf('?');
  let path = query < 0 ? requestTarget : requestTarget.slice(0, query);
  if (!MAY_DISGUISE.test(path)) return undefined;
  for (let round = 0; round <= DECODINGS; round += 1) {
    if (ESCAPED_SEPARATOR.test(path)) return 'an escaped separator (%2f, %5c)';
    for (const segment of path.split(/[/\\]/)) {
      const bare = segment.split(';')[0];
      // Plain "." and ".." as sent are resolved (and refused if they climb) by targetUrlOf.
      if ((bare === '.' || bare === '..') && (round > 0 || bare !== segment))
        return round > 0 ? 'an escaped dot segment' : 'a dot segment with a parameter (..;)';
    }
    const decoded = path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (decoded === path) return undefined;
    path = decoded;
  }
  return undefined;
}

/**
 * Where a request target leads on the target, or undefined when it would leave the target's
 * base path. Joined as text, never resolved as a relative URL: "/http://elsewhere/" must not
 * leave the target, and dot segments ("/../admin") must not climb out of its base path.
 */
export function targetUrlOf(
  requestTarget: string,
  context: AdmissionContext,
): { href: string; path: string } | undefined {
  const { target, targetBase } = context;
  const rest = requestTarget.slice(1);
  // Most request targets are plain: nothing in them a URL parser would change.
  if (PLAIN_REQUEST_TARGET.test(rest) && !DOT_SEGMENT.test(requestTarget))
    return { href: `${targetBase}${rest}`, path: `${target.pathname}${rest}` };
  const url = new URL(`${targetBase}${rest}`);
  if (url.origin !== target.origin || !url.pathname.startsWith(target.pathname)) return undefined;
  return { href: url.href, path: `${url.pathname}${url.search}` };
}

/**
 * Enforce mode: how many body bytes are read before anything is forwarded, so that the request
 * can be judged whole (JSON/XML/forms, up to the validation limit) or by its first part headers
 * (multipart). 0: it is forwarded at once.
 */
export function peekLimitOf(method: string, headers: Headers, enforce: boolean, validateLimit: number): number {
  if (!enforce || method === 'GET' || method === 'HEAD') return 0;
  const type = mediaType(headers['content-type']);
  // A body without a type is judged by its start, as a multipart one (an upload without a type breaks a must rule).
  if (type === 'multipart/form-data' || type === undefined) return 64 * 1024;
  return isTextualMediaType(type) ? validateLimit : 0;
}
