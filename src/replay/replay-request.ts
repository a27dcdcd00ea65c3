import { DEFAULT_NAMES, REDACTED } from '../redaction/index.js';
import { bytesOfText, type Headers, type RecordedBody } from '../validate/exchange.js';

// A recorded request made ready to be sent again: its body as the bytes that were sent, and its
// headers without what the connection sets anew and without the credentials the recording
// redacted ([Filtered] is never sent as a credential; the user's own go in their place).

/** Headers of the connection and the message's framing: the new connection sets its own. */
const CONNECTION_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-connection',
  // Answers are judged as bytes: a compressed one would be read as binary.
  'accept-encoding',
]);

export type ReplayBody = { bytes?: Buffer } | { reason: string };

/**
 * The bytes of a recorded body, or why they cannot be sent again (only their digest was kept, or
 * nothing though the headers announce a body: a browser's HAR leaves file uploads out).
 */
export function replayBody(body: RecordedBody | undefined, headers: Headers = {}): ReplayBody {
  if (!body) {
    const announced = Number(headers['content-length'] ?? 0);
    if (announced > 0 || headers['transfer-encoding'] !== undefined)
      return {
        reason: `its body was not recorded${announced > 0 ? ` (${announced} bytes)` : ''}: record the session with proxy --record-bodies to replay it`,
      };
    return {};
  }
  if (body.size === 0) return {};
  if (body.text !== undefined) return { bytes: bytesOfText({ text: body.text, size: body.size }) };
  if (body.base64 !== undefined) return { bytes: Buffer.from(body.base64, 'base64') };
  const digest = `${body.size} bytes${body.sha256 ? `, sha256 ${body.sha256.slice(0, 12)}…` : ''}`;
  if (body.skipped)
    return {
      reason: `its body was recorded as its first bytes only (${digest}, ${body.skipped}): record it with proxy --record-bodies and a --validate-limit above its size`,
    };
  return {
    reason: `its body was recorded as a digest (${digest}), not whole: record the session with proxy --record-bodies to replay it`,
  };
}

export interface ReplayHeaders {
  headers: Headers;
  /** Recorded credential headers left out (their values were redacted). */
  dropped: string[];
}

/** The recorded headers to send again, with `credentials` (--token, --header) in place of redacted ones. */
export function replayHeaders(recorded: Headers, credentials: Headers): ReplayHeaders {
  const headers: Headers = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(recorded)) {
    const key = name.toLowerCase();
    if (CONNECTION_HEADERS.has(key) || key.startsWith(':')) continue;
    if (DEFAULT_NAMES.isSecretKey(key) || value.includes(REDACTED)) {
      if (!(key in credentials)) dropped.push(key);
      continue;
    }
    headers[key] = value;
  }
  return { headers: { ...headers, ...credentials }, dropped };
}
