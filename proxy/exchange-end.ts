import type { Flight } from './flight.js';
import type { ProxyContext } from './proxy-context.js';
import { requestBodyOf } from './request-body.js';

// The end of an exchange on the proxy's side: what it took is given back, and it is recorded.

/** The exchange cannot complete: what is known of it is judged, with the reason it failed. */
export function judgeFailed(flight: Flight, context: ProxyContext, status: number, message: string): void {
  const { exchange } = flight;
  exchange.request.body = requestBodyOf(flight);
  exchange.error = message;
  exchange.proxyStatus = status;
  exchange.violations = context.judge(exchange);
}

/** The exchange is over (judged already): its taps let go, and it goes to the recording. */
export function settle(flight: Flight, context: ProxyContext): void {
  flight.finished = true;
  flight.discarding = true;
  flight.requestTap.close();
  flight.answer?.tap.release();
  if (flight.peekedCost > 0) context.tapOptions.budget?.give(flight.peekedCost);
  flight.peekedCost = 0;
  // A digest computed on the worker thread is in the recording: it is waited for (the exchange
  // stays in flight until then, so a stopping proxy does not close the recording before it).
  const record = () => {
    context.record(flight.exchange, flight.started);
    flight.done();
  };
  if (flight.requestTap.digested) void flight.requestTap.digested.then(record);
  else record();
}
