import type { Socket } from 'node:net';
import { CONTROL_PREFIX } from '../src/control/control-plane.js';
import { ControlCall } from './control-call.js';
import type { MessageHead } from './http-parser.js';
import { fieldValues } from './message-head.js';
import type { ProxyContext } from './proxy-context.js';

// A request under the control API's prefix on the proxy's own port: answered by the proxy itself,
// for the proxy's own host names only (a page elsewhere cannot reach it through a rebound name).

export type ControlRequest = { kind: 'call'; call: ControlCall } | { kind: 'refused'; status: number; body: string };

/** Undefined when the request is not one for the control API. */
export function controlRequest(
  head: MessageHead,
  own: ProxyContext,
  client: Socket,
  allowedHost: string | undefined,
  detach: () => void,
): ControlRequest | undefined {
  const control = own.control;
  if (!control || !head.url.startsWith(CONTROL_PREFIX)) return undefined;
  const host = fieldValues(head.rawHeaders, 'host');
  if (host.length > 1 || (host[0] !== allowedHost && !own.hostAllowed(host[0])))
    return {
      kind: 'refused',
      status: 403,
      body: JSON.stringify({ message: 'print-conformance proxy: the control API answers its own host names only' }),
    };
  // Nothing after it is read on this connection: its answer closes it (or it becomes an event stream).
  return { kind: 'call', call: new ControlCall(control, head, client, own.localClient(client.remoteAddress), detach) };
}
