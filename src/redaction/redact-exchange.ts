import type { Exchange, RecordedBody, Violation } from '../validate/exchange.js';
import { DEFAULT_NAMES, maskSecrets, REDACTED } from './mask-secrets.js';
import { headerRedactor, withoutLiterals } from './redact.js';
import { rememberedMask } from './remembered-masks.js';
import { SecretNames } from './secret-names.js';

// The one redaction of exchanges: the proxy's recorder and every report writer use it, so that a
// secret hidden from a recording is hidden from results.json, junit.xml and Allure as well, and a
// recording made by another tool (a browser's HAR) is redacted when it is reported.
// Everything of an exchange that is text goes through it: URL, headers, bodies (also those held
// as bytes, and the first bytes kept of large ones), the error and the violations' messages.
// It fails closed: a body it cannot mask is withheld, never written as it came.

export interface RedactionOptions {
  /** More names of headers, parameters, members and elements to treat as secret. */
  names?: readonly string[];
  /** Literal secrets (a token given on the command line) to replace wherever they appear. */
  secrets?: readonly string[];
  /** The exchanges' findings were redacted where they were made (findingRedactor): not again. */
  findingsRedacted?: boolean;
}

type Redactable = Exchange & { violations?: Violation[]; observations?: Violation[] };

/** A JSON string as findings quote values: "…", escapes and all. */
const QUOTED_VALUE = /"(?:[^"\\\n]|\\.)*"/g;

/** Whether a finding's path (/billing/address/country, Billing/Address/Country) passes through a secret name. */
function secretPath(path: string, names: SecretNames): boolean {
  for (const segment of path.split('/')) if (segment !== '' && names.isSecretKey(segment)) return true;
  return false;
}

/**
 * A redactor of findings, for where they are made: a finding about a member of a secret name
 * (its path says which) quotes none of its values, whatever they look like; any other is masked
 * as text (a URL it quotes keeps its shape but not its tokens). Findings quote values as JSON
 * strings and name members in backticks or by name: what is withheld is what is quoted.
 */
export function findingRedactor(options: RedactionOptions = {}): (findings: Violation[]) => Violation[] {
  const names = options.names?.length ? new SecretNames(options.names) : DEFAULT_NAMES;
  const secrets = options.secrets ?? [];
  const mask = rememberedMask((message: string) => withoutLiterals(maskSecrets(message, names), secrets));
  // The same few paths come back in every exchange's findings.
  const secretPaths = new Map<string, boolean>();
  const isSecretPath = (path: string | undefined): boolean => {
    if (path === undefined) return false;
    let secret = secretPaths.get(path);
    if (secret === undefined) {
      secret = secretPath(path, names);
      if (secretPaths.size >= 1024) secretPaths.clear();
      secretPaths.set(path, secret);
    }
    return secret;
  };
  const redact = (finding: Violation): string => {
    if (isSecretPath(finding.path)) return mask(finding.message.replace(QUOTED_VALUE, `"${REDACTED}"`));
    return mask(finding.message);
  };
  return (findings) => {
    let out: Violation[] | undefined;
    for (let index = 0; index < findings.length; index += 1) {
      const finding = findings[index] as Violation;
      const message = redact(finding);
      if (message === finding.message) continue;
      out ??= findings.slice();
      out[index] = { ...finding, message };
    }
    return out ?? findings;
  };
}

const WITHHELD = 'withheld: it could not be redacted';

/** Bytes masked as text: latin1 keeps every byte that is not masked as it was. */
function maskBytes(base64: string, mask: (text: string) => string): string {
  // atob and btoa read and write base64 as latin1 text, at a third of the cost of a Buffer.
  const text = atob(base64);
  const masked = mask(text);
  return masked === text ? base64 : btoa(masked);
}

function redactBody(body: RecordedBody | undefined, mask: (text: string) => string): RecordedBody | undefined {
  if (!body) return body;
  // The common case, a text body with nothing secret, copies nothing.
  if (body.text !== undefined && body.base64 === undefined && body.headBase64 === undefined && !body.parts) {
    try {
      const text = mask(body.text);
      return text === body.text ? body : { ...body, text };
    } catch {
      return withheld(body);
    }
  }
  try {
    const out: RecordedBody = { ...body };
    let changed = false;
    if (body.text) {
      out.text = mask(body.text);
      changed ||= out.text !== body.text;
    }
    if (body.base64) {
      out.base64 = maskBytes(body.base64, mask);
      changed ||= out.base64 !== body.base64;
    }
    if (body.headBase64) {
      out.headBase64 = maskBytes(body.headBase64, mask);
      changed ||= out.headBase64 !== body.headBase64;
    }
    if (body.parts) {
      out.parts = body.parts.map((part) => {
        const head = part.headBase64 && maskBytes(part.headBase64, mask);
        return head === part.headBase64 ? part : { ...part, headBase64: head };
      });
      changed ||= out.parts.some((part, index) => part !== body.parts?.[index]);
    }
    return changed ? out : body;
  } catch {
    return withheld(body);
  }
}

/** Whatever went wrong, a body is not written as it came: only its size and digest are. */
function withheld(body: RecordedBody): RecordedBody {
  const out: RecordedBody = { size: body.size, skipped: WITHHELD };
  if (body.sha256) out.sha256 = body.sha256;
  return out;
}

/**
 * A URL masked, and still a URL: writers parse recorded URLs (a HAR lists the query). Should
 * masking have left none (a host that looks like a token), none of it is kept but its scheme.
 */
function maskUrl(url: string, mask: (text: string) => string): string {
  const masked = mask(url);
  if (masked === url || URL.canParse(masked) || !URL.canParse(url)) return masked;
  return `${new URL(url).protocol}//redacted.invalid/${REDACTED}`;
}

/**
 * A redactor of exchanges, its names settled once: the proxy runs it for every exchange it
 * records. An exchange that holds no secret is returned as it is (no copy).
 */
export function exchangeRedactor(options: RedactionOptions = {}): <E extends Redactable>(exchange: E) => E {
  const names = options.names?.length ? new SecretNames(options.names) : DEFAULT_NAMES;
  const secrets = options.secrets ?? [];
  const mask = rememberedMask((text: string) => {
    const masked = withoutLiterals(maskSecrets(text, names), secrets);
    if (masked !== text || !text.includes('\0')) return masked;
    // UTF-16 read as UTF-8 or as bytes: a NUL between every two characters hides every name.
    // Its secrets are looked for without them; if there is one, none of the text is kept.
    const bare = text.replaceAll('\0', '');
    return withoutLiterals(maskSecrets(bare, names), secrets) === bare ? text : REDACTED;
  });
  const redactHeaders = headerRedactor(options.names, secrets);
  const redactFindings = options.findingsRedacted ? undefined : findingRedactor(options);
  return <E extends Redactable>(exchange: E): E => {
    const { request, response } = exchange;
    const url = maskUrl(request.url, mask);
    const requestHeaders = redactHeaders(request.headers);
    const requestBody = redactBody(request.body, mask);
    const responseHeaders = response && redactHeaders(response.headers);
    const responseBody = response && redactBody(response.body, mask);
    const error = exchange.error === undefined ? undefined : mask(exchange.error);
    const violations =
      exchange.violations && redactFindings ? redactFindings(exchange.violations) : exchange.violations;
    const observations =
      exchange.observations && redactFindings ? redactFindings(exchange.observations) : exchange.observations;
    const requestSame = url === request.url && requestHeaders === request.headers && requestBody === request.body;
    const responseSame = !response || (responseHeaders === response.headers && responseBody === response.body);
    const findingsSame = violations === exchange.violations && observations === exchange.observations;
    if (requestSame && responseSame && error === exchange.error && findingsSame) return exchange;
    const out: E = { ...exchange, request: { ...request, url, headers: requestHeaders } };
    if (requestBody) out.request.body = requestBody;
    if (response) {
      out.response = { ...response, headers: responseHeaders ?? response.headers };
      if (responseBody) out.response.body = responseBody;
    }
    if (error !== undefined) out.error = error;
    if (violations) out.violations = violations;
    if (observations) out.observations = observations;
    return out;
  };
}

const redactors = new Map<string, ReturnType<typeof exchangeRedactor>>();

/** An exchange redacted with the built-in names and those given; redactors are kept for reuse. */
export function redactExchange<E extends Redactable>(exchange: E, options: RedactionOptions = {}): E {
  const key = `${(options.names ?? []).join('\n')}\0${(options.secrets ?? []).join('\n')}`;
  let redactor = redactors.get(key);
  if (!redactor) {
    if (redactors.size >= 16) redactors.clear();
    redactor = exchangeRedactor(options);
    redactors.set(key, redactor);
  }
  return redactor(exchange);
}
