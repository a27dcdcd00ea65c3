import { everyAnswerGone as allGone } from '../validate/gone-answers.js';
import type { TallyData } from '../validate/tally.js';

// A run whose every checkout (or every upload) request got the same 404 or 410 did not reach a
// checkout or upload at all: the URL is stale (an expired or used code) or belongs to another
// service or account. That says nothing of the service's conformance: the run could not be made.

/** One line saying which URL answered nothing but 404/410, and what to do; undefined when none did. */
export function staleUrlProblem(
  answers: TallyData['answers'],
  urls: { checkoutUrl: string; uploadUrl?: string },
): string | undefined {
  const checkout = allGone(answers, ['POST checkout', 'GET checkout']);
  if (checkout)
    return `every checkout request to ${urls.checkoutUrl} was answered ${checkout}: the checkout URL is stale or not this service's; take a fresh checkout.setupUrl from the order (GET orders/{id}, or --order-id), or leave --checkout-url out to place an order`;
  const upload = allGone(answers, ['POST files']);
  if (upload && urls.uploadUrl)
    return `every upload to ${urls.uploadUrl} was answered ${upload}: the upload URL is stale (its file may be uploaded already) or not this service's; take a fresh uploadUrl from the order (GET orders/{id}, or --order-id), or leave --upload-url out to place an order`;
  return undefined;
}
