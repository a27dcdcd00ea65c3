import { distance } from 'fastest-levenshtein';

// "did you mean …" for a misspelt option, config key or command: the nearest known name, if it is
// near enough to be the one meant (a slip of one or two letters, or a third of a longer name).

export function nearestName(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** "; did you mean "x"?" or nothing, formatted by `show` (e.g. as --x). */
export function didYouMean(name: string, known: Iterable<string>, show = (n: string) => `"${n}"`): string {
  const nearest = nearestName(name, known);
  return nearest ? `; did you mean ${show(nearest)}?` : '';
}
