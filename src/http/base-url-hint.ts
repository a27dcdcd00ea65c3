// The one thing a 404 or 405 from the endpoints every service has (orders, oauth) most likely
// means: the base URL is not the one under which the interface lives (often a missing /v2/).

export const BASE_URL_HINT =
  'the base URL is probably wrong: it should be the URL under which orders, checkout/… and files/… live, e.g. https://test.example.com/v2/ (--base-url)';

/** Statuses that say "nothing here", not "not you" or "not this order". */
export function saysNothingHere(status: number): boolean {
  return status === 404 || status === 405;
}
