import type { RecordedBody } from '../src/validate/exchange.js';
import type { Flight } from './flight.js';

// The request body an exchange is judged on. Only a body that has all come is read as what it
// is: the first part of a JSON document is no JSON document, and an upload cut short is no file.
// A body the client did not finish leaves the body's rules untested, never failed.

/** The request's body for the exchange's last judging: whole, or not validated. */
export function requestBodyOf(flight: Flight): RecordedBody {
  const tap = flight.requestTap;
  if (flight.requestEnded) return tap.finish(flight.headers['content-encoding']);
  // Read before it ended (enforce mode's judging of a body it then refused): as it was read.
  const read = tap.read;
  if (read) return read;
  const { framing } = flight.head;
  const of = framing.kind === 'length' ? ` of ${framing.length}` : '';
  return { size: tap.size, skipped: `not validated: the client did not finish the body (${tap.size}${of} bytes came)` };
}

/** The request's body for a look taken while it is still coming (the header of an early answer). */
export function requestBodySoFar(flight: Flight): RecordedBody {
  if (flight.requestEnded) return flight.requestTap.finish(flight.headers['content-encoding']);
  return { size: flight.requestTap.size, skipped: 'not validated yet: the body was still coming' };
}
