// Where a request head read on a client connection goes: a control call, a request for another
// host passed on blind, a refusal, or an exchange of the interface to forward (in the context of
// the connection or of interception). Decided from the head and the Host the connection was last
// allowed for; apart from client-connection.ts, which carries out what is decided here.
import type { Socket } from 'node:net';
import { ABSOLUTE_FORM, routeAbsoluteForm } from './absolute-form.js';
import { type AdmittedRequest, admitRequest } from './admission.js';
import type { BlindRequest } from './blind-request.js';
import type { ControlCall } from './control-call.js';
import { controlRequest } from './control-request.js';
import type { MessageHead } from './http-parser.js';
import { fieldValues } from './message-head.js';
import type { ProxyContext } from './proxy-context.js';

export type RequestRoute =
  /** Not the interface: answered by the proxy itself or passed on unjudged; the connection's last request. */
  | { kind: 'aside'; call: BlindRequest | ControlCall; context: ProxyContext }
  | { kind: 'refused'; status: number; body: string; context: ProxyContext; log?: string }
  | { kind: 'exchange'; head: MessageHead; admission: AdmittedRequest; context: ProxyContext };

/**
 * The route of a request head (not a CONNECT, which the forward door takes). `detach` lets go of the
 * client's socket, for a control call that streams.
 */
export function routeRequest(
  given: MessageHead,
  own: ProxyContext,
  client: Socket,
  allowedHost: string | undefined,
  detach: () => void,
): RequestRoute {
  const control = controlRequest(given, own, client, allowedHost, detach);
  if (control?.kind === 'refused') return { kind: 'refused', status: control.status, body: control.body, context: own };
  if (control) return { kind: 'aside', call: control.call, context: own };
  let head = given;
  let context = own;
  let host = allowedHost;
  if (ABSOLUTE_FORM.test(head.url)) {
    const route = routeAbsoluteForm(head, own, client);
    if (route.kind === 'refused') return { kind: 'refused', status: route.status, body: route.body, context: own };
    if (route.kind === 'blind') return { kind: 'aside', call: route.request, context: own };
    head = route.head;
    context = route.context;
    // The authority in the request target names the host, not Host (RFC 9112 §3.2.2).
    host = fieldValues(head.rawHeaders, 'host')[0];
  }
  const admission = admitRequest(head, context, host);
  if (!admission.admitted)
    return {
      kind: 'refused',
      status: admission.status,
      body: admission.body,
      context,
      ...(admission.log ? { log: admission.log } : {}),
    };
  return { kind: 'exchange', head, admission, context };
}
