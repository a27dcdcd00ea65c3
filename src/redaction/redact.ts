import { DEFAULT_NAMES, maskSecrets, REDACTED } from './mask-secrets.js';
import { rememberedMask } from './remembered-masks.js';
import { SecretNames } from './secret-names.js';

// Credentials never reach a report, a recording or a log: they are replaced before anything is
// written. Which names are secret is said once, in secret-names.ts; how they are found in text,
// in mask-secrets.ts. The placeholder follows Schemathesis' and undici's snapshot habits.

export { REDACTED };

export function redactHeaders(headers: Record<string, string>, extra: readonly string[] = []): Record<string, string> {
  return headerRedactor(extra)(headers);
}

/** Literal secrets of four characters or more (a token given on the command line), replaced. */
export function withoutLiterals(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * A redactor for header records, its names settled once (the proxy runs it for every exchange).
 * A header with a secret name loses its value; any other value is masked as text, so that a
 * Referer or Location keeps its URL but not the token in its query or fragment. A record that
 * holds no secret is returned as it is.
 */
export function headerRedactor(
  extra: readonly string[] = [],
  secrets: readonly string[] = [],
): (headers: Record<string, string>) => Record<string, string> {
  const names = extra.length > 0 ? new SecretNames(extra) : DEFAULT_NAMES;
  const mask = rememberedMask((value: string) => withoutLiterals(maskSecrets(value, names), secrets));
  return (headers) => {
    let out: Record<string, string> | undefined;
    for (const name in headers) {
      const value = headers[name] as string;
      const masked = names.isSecretKey(name) ? REDACTED : mask(value);
      if (masked === value) continue;
      out ??= { ...headers };
      out[name] = masked;
    }
    return out ?? headers;
  };
}

/** Removes secrets from a URL or any text, and any literal secret given. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  return withoutLiterals(maskSecrets(text), secrets);
}
