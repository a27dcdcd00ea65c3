import type { ExchangeKind } from '../contract/exchange-facts.js';
import type { TallyData } from './tally.js';

// Every request of a kind answered the same 404 or 410 did not reach a checkout or an upload at
// all: the URL is stale or another service's. The probes stop there, and the run says so.

const GONE = new Set(['404', '410']);

/** The one status every answer of these kinds had, when it is 404 or 410. */
export function everyAnswerGone(answers: TallyData['answers'], kinds: readonly ExchangeKind[]): string | undefined {
  const statuses = new Set<string>();
  let count = 0;
  for (const kind of kinds)
    for (const [answer, n] of Object.entries(answers[kind] ?? {})) {
      statuses.add(answer.slice(0, 3));
      count += n;
    }
  const [only] = statuses;
  return count > 0 && statuses.size === 1 && only !== undefined && GONE.has(only) ? only : undefined;
}
