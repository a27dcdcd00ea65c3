import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTROL_BODY_LIMIT, type ControlPlane } from '../control/control-plane.js';
import { hostAllowed, isLoopback } from '../http/host-names.js';
import type { Headers } from '../validate/exchange.js';
import { readSmallBody } from './request-body.js';

// serve's door to the control API: a request under /__print-conformance/ read whole and answered
// by the control plane, or turned into an event stream; never handled as the interface.

export function answerControl(
  control: ControlPlane,
  request: IncomingMessage,
  response: ServerResponse,
  publicBase: string,
): void {
  const send = (status: number, headers: Record<string, string>, body: string | Buffer) => {
    response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
  if (!hostAllowed(request.headers.host, new URL(publicBase).hostname, [])) {
    request.resume();
    send(
      403,
      { 'content-type': 'application/json' },
      '{"message":"print-conformance: the control API answers its own host names only"}',
    );
    return;
  }
  const answered = readSmallBody(request, CONTROL_BODY_LIMIT).then(
    (bytes) => {
      const headers: Headers = Object.create(null);
      for (const [name, value] of Object.entries(request.headers))
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      const answer = control.handle({
        method: request.method ?? 'GET',
        target: (request.url ?? '/').slice('/__print-conformance/'.length),
        headers,
        body: bytes.toString('utf8'),
        local: isLoopback(request.socket.remoteAddress),
      });
      if (!('stream' in answer)) {
        send(answer.status, answer.headers, answer.body);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
      response.flushHeaders();
      answer.stream({
        write: (text) => {
          if (!response.destroyed) response.write(text);
        },
        end: () => response.end(),
        buffered: () => response.writableLength,
        onClose: (listener) => response.once('close', listener),
      });
    },
    () =>
      send(
        413,
        { 'content-type': 'application/json' },
        '{"message":"print-conformance: a control request body is 64 KiB at most"}',
      ),
  );
  // A fault in answering ends this request, never the service.
  answered.catch(() => response.destroy());
}
