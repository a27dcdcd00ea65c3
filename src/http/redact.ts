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

// A parameter follows "?", "&" or ";" (XML writes "&" as "&amp;"). Its value ends where the query
// does, or where the text around the URL resumes: a URL in a JSON string or an XML element keeps
// its closing quote or tag.
const SECRET_PARAMS = /([?&;](?:access_token|client_secret|token|api_key)=)[^&#\s"'<]*/gi;
const SECRET_PARAM_NAME_ENDS = /[?&;](?:access_token|client_secret|token|api_key)$/i;
/** The separator and the longest name: how far before an "=" a secret parameter can start. */
const LONGEST_PARAM = 1 + 'client_secret'.length;

/**
 * Whether the text holds a secret query parameter. Nearly every text holds none: looking only
 * before each "=" costs a fraction of running the replacing pattern over the whole text.
 */
function mentionsSecretParam(text: string): boolean {
  for (let at = text.indexOf('='); at >= 0; at = text.indexOf('=', at + 1)) {
    if (SECRET_PARAM_NAME_ENDS.test(text.slice(Math.max(0, at - LONGEST_PARAM), at))) return true;
  }
  return false;
}

/** Removes secrets from a URL's query, and any literal secret given, from free text. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = mentionsSecretParam(text) ? text.replace(SECRET_PARAMS, `$1${REDACTED}`) : text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  return out;
}
