import type { Socket } from 'node:net';
import { UNDECODED_CODING } from './message-framing.js';
import { fieldLines, statusLine } from './message-head.js';
import { writeClient } from './socket-writes.js';

// Answers to requests the proxy does not forward: written whole, each closing the connection.

/** A refusal with a JSON body (or none), closing the connection. */
export function writeRefusal(client: Socket, status: number, body: string): void {
  const bytes = Buffer.from(body);
  const fields: Record<string, string> = { 'content-length': String(bytes.length) };
  if (body) fields['content-type'] = 'application/json';
  writeClient(client, `${statusLine(status)}${fieldLines(fields)}connection: close\r\n\r\n`, bytes);
}

/** An empty answer with this status, closing the connection. */
export function writeBare(client: Socket, status: number): void {
  writeClient(client, `${statusLine(status)}content-length: 0\r\nconnection: close\r\n\r\n`);
}

/**
 * A TLS handshake (record type 22, version 3.x) where HTTP was due: the client took this port for
 * an HTTPS one. The line saying so, or undefined for anything else.
 */
export function tlsOnPlainPort(chunk: Buffer, ownAuthority: string): string | undefined {
  if (chunk[0] !== 0x16 || chunk[1] !== 0x03) return undefined;
  return `a client sent TLS to this plain HTTP port: use http://${ownAuthority}/ as the base URL, or as HTTPS_PROXY for an HTTPS service`;
}

/** Why the client's bytes were not a request, as told to it and in the log. */
export function malformedStatus(code: string): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  // A request line of another HTTP version than 1.0 or 1.1 (RFC 9110 §15.6.6).
  if (code === 'HPE_INVALID_VERSION') return 505;
  // A transfer coding the proxy does not decode (RFC 9112 §6.1).
  if (code === UNDECODED_CODING) return 501;
  return 400;
}
