import { hash } from 'node:crypto';
import { type ClientsBy, clientIdOf, UNKNOWN_CLIENT } from '../validate/client-tally.js';
import type { Exchange, Headers } from '../validate/exchange.js';

// Which client team an exchange belongs to (--clients-by). With `oauth`, the proxy watches the token
// calls go by (POST …/oauth, client_id in the form body or in the call's Basic credentials) and
// maps each access token handed out to the client that asked for it; a later request's bearer token
// names its client. Only a digest of each token is held, in a bounded map that forgets the least
// recently used and the expired. A token the proxy never saw handed out names no one: `unknown`.

export type { ClientsBy };

/** Tokens remembered at once; past it, the least recently used is forgotten. */
export const TOKENS_KEPT = 10_000;
/** How long a token lasts when its answer does not say (the real service's: four hours). */
const DEFAULT_EXPIRY_S = 4 * 60 * 60;
/** Header values told apart before they are mapped again rather than remembered. */
const IDS_KEPT = 1000;

const TOKEN_PATH = /\/oauth\/?$/;

/** The user of Basic credentials, or undefined when the header holds none. */
function basicUser(authorization: string | undefined): string | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!encoded) return undefined;
  const pair = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  // Form-encoded as RFC 6749 asks of client credentials in Basic; most clients send them plain.
  const user = colon < 0 ? pair : pair.slice(0, colon);
  try {
    return decodeURIComponent(user.replace(/\+/g, ' '));
  } catch {
    return user;
  }
}

// One-shot hashing: a third of what a Hash object costs, paid on every request with a bearer token.
const digest = (token: string) => hash('sha256', token, 'base64url');

interface Handed {
  client: string;
  /** performance.now() past which the token no longer names its client. */
  until: number;
}

export class ClientIdentity {
  private readonly tokens = new Map<string, Handed>();
  private readonly ids = new Map<string, string>();

  /** `mask`: the session's redaction of texts, so that an id never shows a secret it happens to hold. */
  constructor(
    readonly by: ClientsBy,
    private readonly mask: (text: string) => string = (text) => text,
  ) {}

  /** A header value or user as the id shown, masked once and remembered. */
  private shown(raw: string | undefined): string {
    const id = clientIdOf(raw);
    if (id === undefined) return UNKNOWN_CLIENT;
    let shown = this.ids.get(id);
    if (shown === undefined) {
      shown = this.mask(id);
      if (this.ids.size >= IDS_KEPT) this.ids.clear();
      this.ids.set(id, shown);
    }
    return shown;
  }

  /**
   * The client a request belongs to, from its head; a `print-conformance-` header that names it is
   * the proxy's to read, removed before forwarding and recording.
   */
  of(headers: Headers): string | undefined {
    const { by } = this;
    if (by.kind === 'none') return undefined;
    if (by.kind === 'basic') return this.shown(basicUser(headers.authorization));
    if (by.kind === 'header') {
      const value = headers[by.name];
      if (by.name.startsWith('print-conformance-') && value !== undefined) delete headers[by.name];
      return this.shown(value);
    }
    const token = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
    if (token === undefined) return UNKNOWN_CLIENT;
    const key = digest(token);
    const handed = this.tokens.get(key);
    if (!handed) return UNKNOWN_CLIENT;
    if (handed.until < performance.now()) {
      this.tokens.delete(key);
      return UNKNOWN_CLIENT;
    }
    // Used again: the last to be forgotten.
    this.tokens.delete(key);
    this.tokens.set(key, handed);
    return handed.client;
  }

  /**
   * A finished exchange, before it is redacted: a token call (with `oauth`) belongs to the client it
   * names, and the token its answer hands out is that client's from now on.
   */
  learn(exchange: Exchange & { client?: string }): void {
    if (this.by.kind !== 'oauth' || exchange.request.method !== 'POST') return;
    const url = exchange.request.url;
    const path = url.slice(0, (url.indexOf('?') + 1 || url.length + 1) - 1);
    if (!TOKEN_PATH.test(path)) return;
    const form = new URLSearchParams(exchange.request.body?.text ?? '');
    const raw = form.get('client_id') ?? basicUser(exchange.request.headers.authorization);
    const client = this.shown(raw ?? undefined);
    exchange.client = client;
    const response = exchange.response;
    if (!response || response.status < 200 || response.status > 299 || client === UNKNOWN_CLIENT) return;
    let answer: { access_token?: unknown; expires_in?: unknown };
    try {
      answer = JSON.parse(response.body?.text ?? '') as typeof answer;
    } catch {
      return;
    }
    if (typeof answer?.access_token !== 'string' || answer.access_token === '') return;
    const seconds =
      typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : DEFAULT_EXPIRY_S;
    const key = digest(answer.access_token);
    this.tokens.delete(key);
    if (this.tokens.size >= TOKENS_KEPT) this.tokens.delete(this.tokens.keys().next().value as string);
    this.tokens.set(key, { client, until: performance.now() + seconds * 1000 });
  }
}
