import { checkCheckout } from './checkout.js';
import { type Exchange, endpointOf, type Violation } from './exchange.js';
import { checkFormat } from './format.js';
import { ViolationList } from './report-to.js';
import { CheckoutState } from './state.js';
import { checkUpload } from './upload.js';

export type { Exchange, RecordedBody, RecordedRequest, RecordedResponse, Side, Violation } from './exchange.js';
export { CheckoutState } from './state.js';

/**
 * Judges one exchange against every rule that traffic can show. Pure: the only memory is `state`,
 * which carries what earlier POSTs set so that a later GET can be compared with it.
 */
export function validateExchange(exchange: Exchange, state: CheckoutState = new CheckoutState()): Violation[] {
  const out = new ViolationList();
  const read = checkFormat(exchange, out);
  const endpoint = endpointOf(exchange.request.url);
  if (endpoint.kind === 'checkout') checkCheckout(exchange, read, state, endpoint.key, out);
  else if (endpoint.kind === 'upload') checkUpload(exchange, read, out);
  return out.items;
}
