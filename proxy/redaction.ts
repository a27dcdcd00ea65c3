import { maskSecrets } from '../src/http/mask-secrets.js';
import { findingRedactor, exchangeRedactor as redactorOf } from '../src/http/redact-exchange.js';
import { SecretNames } from '../src/http/secret-names.js';
import type { Exchange, Violation } from '../src/validate/exchange.js';

// Nothing secret reaches a recording, a HAR file, a log, an answer or a summary. The proxy redacts
// with the same redaction as every report (src/http/redact-exchange.ts); --redact adds names to it.
// Findings are redacted where they are made, as the proxy judges an exchange: the violations
// header, the log, the tally and its summaries, the recording and enforce mode's answers all get
// them redacted, with the session's names.

export interface RedactionOptions {
  headers: string[];
  members: string[];
}

export interface ProxyRedaction {
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
export function proxyRedaction(options: RedactionOptions): ProxyRedaction {
  const names = [...new Set([...options.headers, ...options.members])];
  const secretNames = new SecretNames(names);
  return {
    exchange: redactorOf({ names, findingsRedacted: true }),
    findings: findingRedactor({ names }),
    text: (text) => maskSecrets(text, secretNames),
  };
}
