import { withoutLiterals } from './redact.js';

// Credentials the user gave (--token, --header, --client-secret, a token fetched with them) are
// known by their values, not by a name: a service may echo one anywhere in an answer or an error.
// A command names them once it has read them; its reports, console lines and its one-line error
// (written far from where they were read, when the command fails) leave them out.

const given = new Set<string>();

/** Header names whose values are credentials, whatever the redactor's list of secret names says. */
const CREDENTIAL_HEADER =
  /authorization|api-key|apikey|token|cookie|secret|session|auth|key|pass|credential|signature/i;

/**
 * Headers a user sets for what they say, not who they are: their values are no credentials. Any
 * other header the user gives (X-Shop-Key, X-Tenant-Id…) may be one, and is masked as one.
 */
const PLAIN_HEADER =
  /^(?:accept(?:-[a-z]+)?|content-(?:type|language|encoding)|user-agent|cache-control|pragma|connection|prefer|if-[a-z-]+|origin|referer|x-requested-with|x-request-id|x-correlation-id|traceparent|tracestate|dnt|te|expect|range)$/i;

/** A value of a header that may be no credential is masked from this long: shorter ones are words ("true"). */
const LONGEST_PLAIN_WORD = 7;

/** Notes credentials of this process: every value, and the credential after an auth scheme. */
export function noteGivenSecrets(values: Iterable<string | undefined>): void {
  for (const value of values) {
    if (!value || value.length < 4) continue;
    given.add(value);
    const credential = /^\S+\s+(\S{4,})$/.exec(value)?.[1];
    if (credential) given.add(credential);
  }
}

/**
 * The values among the given headers that may be credentials: those of credential headers, and
 * those of every header but the plain ones (Accept, Content-Type…) long enough to be no word.
 */
export function credentialValues(headers: Record<string, string>): string[] {
  return Object.entries(headers)
    .filter(
      ([name, value]) =>
        CREDENTIAL_HEADER.test(name) || (!PLAIN_HEADER.test(name) && value.trim().length > LONGEST_PLAIN_WORD),
    )
    .map(([, value]) => value);
}

/** Option names of a command line whose values are credentials (--password=…, --api-key …, -u user:pass). */
const CREDENTIAL_OPTION =
  /^--?(?:[a-z0-9]+[-_])*(?:pass(?:word|wd|phrase)?|token|secret|api[-_]?key|key|auth|credentials?|cookie)$/i;
/** curl's -u / --user user:password (a user alone is no secret). */
const USER_OPTION = /^(?:-u|--user|--proxy-user)$/;
/** NAME=value in a command line (env PASSWORD=…), with NAME a credential's. */
const CREDENTIAL_ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/;
const CREDENTIAL_NAME = /pass|token|secret|api_?key|auth|credential|cookie/i;
/** Options that take a header: -H / --header "Name: value". */
const HEADER_OPTION = /^(?:-H|--header)$/;
/** user:password@ in a URL anywhere in an argument. */
const URL_USERINFO = /[a-z][a-z0-9+.-]*:\/\/([^\s/?#@:]*):([^\s/?#@]+)@/gi;

/**
 * The credentials written on a command line (a wrapped command's arguments): a URL's user and
 * password, the values of options named for credentials (--password=…, --token …, -u user:pass),
 * credential assignments (PASSWORD=…), and credential headers (-H "X-Api-Key: …").
 */
export function commandLineSecrets(args: readonly string[]): string[] {
  const found: string[] = [];
  const take = (value: string | undefined) => {
    if (!value) return;
    found.push(value);
    // curl's -u user:password: the password alone too.
    const password = /^[^:\s]+:(.+)$/.exec(value)?.[1];
    if (password) found.push(password);
  };
  for (const [index, arg] of args.entries()) {
    for (const match of arg.matchAll(URL_USERINFO)) {
      found.push(`${match[1]}:${match[2]}`);
      found.push(match[2] as string);
    }
    const option = /^(--?[A-Za-z0-9_-]+)(?:=(.*))?$/.exec(arg);
    if (option && CREDENTIAL_OPTION.test(option[1] as string)) {
      take(option[2] ?? args[index + 1]);
      continue;
    }
    if (option && USER_OPTION.test(option[1] as string)) {
      const value = option[2] ?? args[index + 1];
      if (value?.includes(':')) take(value);
      continue;
    }
    // -uuser:password, as curl also takes it.
    if (/^-u[^:\s]+:/.test(arg)) take(arg.slice(2));
    if (HEADER_OPTION.test(arg)) {
      const header = /^([^:]+):\s*(.+)$/.exec(args[index + 1] ?? '');
      if (header) found.push(...credentialValues({ [(header[1] as string).trim()]: header[2] as string }));
      continue;
    }
    const assignment = CREDENTIAL_ASSIGNMENT.exec(arg);
    if (assignment && CREDENTIAL_NAME.test(assignment[1] as string)) take(assignment[2]);
  }
  return [...new Set(found)].filter((value) => value.length >= 4);
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
