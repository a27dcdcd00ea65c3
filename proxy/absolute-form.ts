import type { Socket } from 'node:net';
import { BlindRequest } from './blind-request.js';
import type { MessageHead } from './http-parser.js';
import type { ProxyContext } from './proxy-context.js';

// A request in absolute form ("GET http://host/path"), as sent to a forward proxy: for a host of
// the interface, the same request in origin form, handled in interception's context; for another
// host, passed on blind (loopback clients only) or refused.

const REFUSED_ABSOLUTE =
  '{"message":"print-conformance proxy: a request in absolute form is taken for http(s):// URLs without credentials only"}';

/** A request target in absolute form ("http://host/path"), as clients send to a forward proxy. */
export const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

export type AbsoluteFormRoute =
  | { kind: 'intercepted'; head: MessageHead; context: ProxyContext }
  | { kind: 'blind'; request: BlindRequest }
  | { kind: 'refused'; status: number; body: string };

export function routeAbsoluteForm(head: MessageHead, own: ProxyContext, client: Socket): AbsoluteFormRoute {
  const door = own.door;
  const intercepting = own.intercepting;
  let url: URL | undefined;
  try {
    url = new URL(head.url);
  } catch {
    url = undefined;
  }
  const secure = url?.protocol === 'https:';
  if (!door || !intercepting || !url || !(secure || url.protocol === 'http:') || url.username || url.password)
    return { kind: 'refused', status: 400, body: REFUSED_ABSOLUTE };
  // Some clients (axios among them) ask a proxy for an https:// URL in plain HTTP rather than tunnel.
  const authority = { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) || (secure ? 443 : 80) };
  if (door.intercepts(authority))
    return { kind: 'intercepted', head: { ...head, url: `${url.pathname}${url.search}` }, context: intercepting };
  if (!own.localClient(client.remoteAddress)) {
    const reason = `a request for ${url.host} from ${client.remoteAddress}: only the interface's hosts are reached for clients on other machines`;
    return { kind: 'refused', status: 403, body: JSON.stringify({ message: `print-conformance proxy: ${reason}` }) };
  }
  // The connection carries this request alone, and closes after its answer.
  const request = new BlindRequest(
    client,
    head,
    url,
    door.route(authority),
    own.answerTimeoutMs,
    (status, reason) => own.refused(status, reason),
    () => own.passedOn?.(authority),
  );
  return { kind: 'blind', request };
}
