import type { Violation } from './types.js';

/**
 * A recording keeps `must` and `should` findings as `violations` and `observe` ones apart, as
 * `observations`: an observation (a member the description does not name) breaks nothing.
 */
export function splitObservations(found: readonly Violation[]): {
  violations: Violation[];
  observations: Violation[];
} {
  const violations: Violation[] = [];
  const observations: Violation[] = [];
  for (const item of found) (item.severity === 'observe' ? observations : violations).push(item);
  return { violations, observations };
}
