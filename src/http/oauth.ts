import { UsageError } from '../findings/usage-error.js';
import { type Exchange, header } from '../validate/exchange.js';
import { BASE_URL_HINT, saysNothingHere } from './base-url-hint.js';
import { send } from './send.js';

/**
 * A 401 that challenges for a bearer token is a protected resource's answer: a token endpoint
 * refuses bad client credentials with an OAuth error (RFC 6749 §5.2), it never asks for the token it
 * issues. Services that check tokens before routing answer so at a path they do not have.
 */
function asksForBearerToken(exchange: Exchange): boolean {
  const response = exchange.response;
  return response?.status === 401 && /^\s*bearer\b/i.test(header(response.headers, 'www-authenticate') ?? '');
}

/** OAuth 2.0 client credentials against {base}/oauth, as the real service issues tokens. */
export async function clientCredentialsToken(
  baseUrl: string,
  clientId: string,
  clientSecret: string,
  timeoutMs: number,
): Promise<{ token: string; exchange: Exchange }> {
  const url = new URL('oauth', baseUrl).href;
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
  }).toString();
  const exchange = await send(
    {
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
    },
    undefined,
    timeoutMs,
  );
  if (!exchange.response)
    throw new UsageError(`cannot reach the service: POST ${url} failed (${exchange.error}); check --base-url`);
  const status = exchange.response.status;
  let token: unknown;
  try {
    token = JSON.parse(exchange.response.body?.text ?? '').access_token;
  } catch {
    token = undefined;
  }
  if (saysNothingHere(status) || asksForBearerToken(exchange))
    throw new UsageError(`POST ${url} answered ${status}: ${BASE_URL_HINT}`);
  if (status !== 200 || typeof token !== 'string') {
    throw new UsageError(
      `POST ${url} answered ${status} without an access_token; check --client-id and --client-secret`,
    );
  }
  return { token, exchange };
}
