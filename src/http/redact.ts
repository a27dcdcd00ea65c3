// Credentials never reach a report, a recording or a log: they are replaced before anything is
// written. The names follow Schemathesis' and undici's snapshot habits.

export const REDACTED = '[Filtered]';

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

export function redactHeaders(headers: Record<string, string>, extra: readonly string[] = []): Record<string, string> {
  return headerRedactor(extra)(headers);
}

/**
 * A redactor for header records, its names settled once (the proxy runs it for every exchange).
 * A record that holds no secret is returned as it is.
 */
export function headerRedactor(
  extra: readonly string[] = [],
): (headers: Record<string, string>) => Record<string, string> {
  const secret = new Set([...SECRET_HEADERS, ...extra.map((name) => name.toLowerCase())]);
  return (headers) => {
    let out: Record<string, string> | undefined;
    for (const name in headers) {
      if (!secret.has(name.toLowerCase())) continue;
      out ??= { ...headers };
      out[name] = REDACTED;
    }
    return out ?? headers;
  };
}

const SECRET_PARAMS = /([?&](?:access_token|client_secret|token|api_key)=)[^&#\s]*/gi;

/** Removes secrets from a URL's query, and any literal secret given, from free text. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(SECRET_PARAMS, `$1${REDACTED}`);
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  return out;
}
