import { UsageError } from '../findings/usage-error.js';
import type { Headers } from '../validate/exchange.js';
import { parseHeaders } from './header-option.js';

// The credentials a replay sends in place of the recording's (which the proxy redacted): --header,
// --token, or a token fetched with --client-id/--client-secret, as `run` takes them.

export interface CredentialOptions {
  header?: unknown;
  token?: string;
  'client-id'?: string;
  'client-secret'?: string;
}

export async function replayCredentials(
  options: CredentialOptions,
  target: string,
  timeoutMs: number,
): Promise<{ headers: Headers }> {
  const clientId = options['client-id'];
  const clientSecret = options['client-secret'];
  if ((clientId === undefined) !== (clientSecret === undefined))
    throw new UsageError('--client-id and --client-secret go together');
  const header = options.header;
  const given = header === undefined ? [] : (Array.isArray(header) ? header : [header]).map(String);
  const headers = parseHeaders(given);
  if (clientId !== undefined && clientSecret !== undefined) {
    const { clientCredentialsToken } = await import('../http/oauth.js');
    const { token } = await clientCredentialsToken(target, clientId, clientSecret, timeoutMs);
    headers.authorization = `Bearer ${token}`;
  } else if (options.token) headers.authorization = `Bearer ${options.token}`;
  return { headers };
}
