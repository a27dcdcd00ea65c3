import { UsageError } from '../findings/usage-error.js';
import type { ClientsBy } from '../validate/client-tally.js';

// --clients-by of proxy and validate: how the exchanges of many client teams through one proxy are
// told apart, so that each team gets a verdict of its own.

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The option's declaration: `.option('clients-by', CLIENTS_BY_OPTION)`. */
export const CLIENTS_BY_OPTION = {
  type: 'string',
  default: 'none',
  describe:
    'Tell client teams apart, each with its own verdict: oauth (the client_id that obtained the bearer token), basic (the Basic user), header:NAME (that request header), none',
} as const;

/** The option's value, checked: a bad one is one line and exit 2. */
export function parseClientsBy(value: string | undefined): ClientsBy {
  const given = (value ?? 'none').trim();
  if (given === 'none' || given === 'oauth' || given === 'basic') return { kind: given };
  const header = /^header:(.*)$/i.exec(given)?.[1]?.trim();
  if (header !== undefined && HEADER_NAME.test(header)) return { kind: 'header', name: header.toLowerCase() };
  throw new UsageError(
    `--clients-by takes oauth, basic, header:NAME (a request header's name) or none, not ${JSON.stringify(given.slice(0, 80))}`,
  );
}
