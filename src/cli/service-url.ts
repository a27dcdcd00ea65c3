import { UsageError } from '../findings/usage-error.js';

// URLs of the service given on the command line (--base-url, --target, …). A user and password in
// one (https://user:pass@host/) are refused rather than used: they would travel into recordings,
// logs, reports and error answers with every URL made from it, and the service's own credentials
// (--token, --client-id/--client-secret, --header) already have a place that is never written.

/** An absolute http(s) URL without user or password, or a usage error saying why not. */
export function serviceUrl(value: string, option: string, credentialsHint: string): URL {
  let url: URL;
  try {
    url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
  } catch {
    // A value with "@" may hold a password that failed to parse: it is not repeated.
    throw new UsageError(`${option}${value.includes('@') ? '' : ` ${value}`} is not an absolute http(s) URL`);
  }
  if (url.username !== '' || url.password !== '')
    throw new UsageError(
      `${option} must not hold a user name or password (user:password@host), which would be written into recordings and reports; ${credentialsHint}`,
    );
  return url;
}

/** The suite's URL options as absolute http(s) URLs, or undefined when not given. */
export function absoluteUrl(value: string | undefined, option: string): string | undefined {
  if (value === undefined) return undefined;
  return serviceUrl(value, option, 'give credentials with --header "Authorization: Basic …" or --token').href;
}
