import { UsageError } from '../findings/usage-error.js';
import type { Exchange } from '../validate/exchange.js';
import { BASE_URL_HINT, saysNothingHere } from './base-url-hint.js';
import { send } from './send.js';

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
  if (saysNothingHere(status)) throw new UsageError(`POST ${url} answered ${status}: ${BASE_URL_HINT}`);
  if (status !== 200 || typeof token !== 'string') {
    throw new UsageError(
      `POST ${url} answered ${status} without an access_token; check --client-id and --client-secret`,
    );
  }
  return { token, exchange };
}
