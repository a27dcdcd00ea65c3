import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostAllowed } from '../http/host-names.js';

// The reference service answers only requests addressed to it by one of its names. A web page on
// another name that resolves to this machine (DNS rebinding) could otherwise place orders and end
// payments through a visitor's browser, as the proxy already refuses.

/** The names a service accepts besides IP addresses and localhost: where it listens and those given. */
export interface ServiceNames {
  listenHost: string;
  allowed: readonly string[];
}

/** Answers 403 to a request for another Host and returns true; false when the Host is one of ours. */
export function refusedForeignHost(request: IncomingMessage, response: ServerResponse, names: ServiceNames): boolean {
  if (hostAllowed(request.headers.host, names.listenHost, names.allowed)) return false;
  request.resume();
  // The name is not echoed: the page that sent it learns nothing from the answer.
  const body = JSON.stringify({
    message: 'this Host is not a name of this service; allow it with --allowed-host or --public-url',
  });
  response.writeHead(403, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
  return true;
}
