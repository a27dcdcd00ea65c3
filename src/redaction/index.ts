// Nothing secret reaches a recording, a report, a log, an answer or the console: every writer goes
// through this one entry. Which names are secret is said once (secret-names.ts); how secrets are
// found in text, in mask-secrets.ts and the passes beside it; what of an exchange is text, in
// redact-exchange.ts; the proxy's session (its --redact names, findings redacted as they are made),
// in session.ts. It fails closed: what cannot be redacted is not written.

export {
  commandLineSecrets,
  credentialValues,
  givenSecrets,
  noteGivenSecrets,
  withoutGivenSecrets,
} from './given-secrets.js';
export { DEFAULT_NAMES, maskSecrets, REDACTED } from './mask-secrets.js';
export { headerRedactor, redactHeaders, redactText, withoutLiterals } from './redact.js';
export { exchangeRedactor, findingRedactor, type RedactionOptions, redactExchange } from './redact-exchange.js';
export { SecretNames } from './secret-names.js';
export { type SessionNames, type SessionRedaction, sessionRedaction } from './session.js';
