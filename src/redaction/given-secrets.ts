import { withoutLiterals } from './redact.js';

// Credentials the user gave (--token, --header, --client-secret, a token fetched with them) are
// known by their values, not by a name: a service may echo one anywhere in an answer or an error.
// A command names them once it has read them; its reports, console lines and its one-line error
// (written far from where they were read, when the command fails) leave them out.

const given = new Set<string>();

/** Header names whose values are credentials, whatever the redactor's list of secret names says. */
const CREDENTIAL_HEADER = /authorization|api-key|apikey|token|cookie|secret|session|auth/i;

/** Notes credentials of this process: every value, and the credential after an auth scheme. */
export function noteGivenSecrets(values: Iterable<string | undefined>): void {
  for (const value of values) {
    if (!value || value.length < 4) continue;
    given.add(value);
    const credential = /^\S+\s+(\S{4,})$/.exec(value)?.[1];
    if (credential) given.add(credential);
  }
}

/** The values of the credential headers among the given ones. */
export function credentialValues(headers: Record<string, string>): string[] {
  return Object.entries(headers)
    .filter(([name]) => CREDENTIAL_HEADER.test(name))
    .map(([, value]) => value);
}

/** The credentials noted so far. */
export function givenSecrets(): string[] {
  return [...given];
}

/** Deeper than any report's data: a guard, not a limit anything reaches. */
const MAX_DEPTH = 256;

/** A report's data with every given secret replaced in every string it holds. */
export function withoutGivenSecrets<T>(value: T, secrets: readonly string[] = givenSecrets(), depth = 0): T {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return withoutLiterals(value, secrets) as T;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => withoutGivenSecrets(item, secrets, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) out[key] = withoutGivenSecrets(member, secrets, depth + 1);
  return out as T;
}
