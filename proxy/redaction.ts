import { exchangeRedactor as redactorOf } from '../src/http/redact-exchange.js';
import type { Exchange } from '../src/validate/exchange.js';

// Nothing secret reaches a recording, a HAR file or a log. The proxy redacts with the same
// redaction as every report (src/http/redact-exchange.ts); --redact adds names to it.

export interface RedactionOptions {
  headers: string[];
  members: string[];
}

/**
 * Redacts exchanges before they are written. Its names are settled once, and an exchange that
 * holds no secret is returned as it is: the proxy runs this for every exchange it records.
 */
export function exchangeRedactor(options: RedactionOptions): <E extends Exchange>(exchange: E) => E {
  return redactorOf({ names: [...new Set([...options.headers, ...options.members])] });
}
