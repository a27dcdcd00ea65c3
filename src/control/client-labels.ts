import { OTHER_CLIENTS } from '../validate/client-tally.js';

// The `client` label of the metrics (--clients-by): the first LABELLED_CLIENTS clients seen by
// their id, every later one as `other`, so that a sandbox with many teams cannot grow the series
// without bound. The mapping never changes for a client once made.

export const LABELLED_CLIENTS = 100;

/** A function from a client id to its bounded metrics label, remembering the first `limit` ids seen. */
export function clientLabels(limit = LABELLED_CLIENTS): (client: string) => string {
  const labelled = new Set<string>();
  return (client) => {
    if (labelled.has(client)) return client;
    if (labelled.size >= limit) return OTHER_CLIENTS;
    labelled.add(client);
    return client;
  };
}
