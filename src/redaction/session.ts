import type { Exchange, Violation } from '../validate/exchange.js';
import { maskSecrets } from './mask-secrets.js';
import { withoutLiterals } from './redact.js';
import { findingRedactor, exchangeRedactor as redactorOf } from './redact-exchange.js';
import { SecretNames } from './secret-names.js';

// The redaction of one session of the proxy, with its names (--redact) settled once. Findings are
// redacted where they are made, as the proxy judges an exchange: the violations header, the log,
// the tally and its summaries, the recording and enforce mode's answers all get them redacted.

export interface SessionNames {
  headers: string[];
  members: string[];
  /** Credentials the user gave (a wrapped command's password), replaced wherever traffic echoes them. */
  secrets?: string[];
}

export interface SessionRedaction {
  /** Exchanges before they are written (their findings are redacted already). */
  exchange: <E extends Exchange>(exchange: E) => E;
  /** Findings, as the proxy makes them. */
  findings: (findings: Violation[]) => Violation[];
  /** Any text of the proxy's own that may quote traffic (an error, a reason). */
  text: (text: string) => string;
}

/**
 * The session's redaction. Its names are settled once, and what holds no secret is returned as
 * it is: the proxy runs this for every exchange it judges and records.
 */
export function sessionRedaction(options: SessionNames): SessionRedaction {
  const names = [...new Set([...options.headers, ...options.members])];
  const secretNames = new SecretNames(names);
  const secrets = options.secrets ?? [];
  return {
    exchange: redactorOf({ names, secrets, findingsRedacted: true }),
    findings: findingRedactor({ names, secrets }),
    text: (text) => withoutLiterals(maskSecrets(text, secretNames), secrets),
  };
}
