import type { RuleId } from '../contract/rules.js';
import type { Exchange, Violation } from '../validate/exchange.js';
import { CheckoutState, judgeExchange } from '../validate/index.js';
import { checkoutRequestBody, OTHER_ADDRESS, returnUrlOfLength, SAMPLE_ADDRESS } from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF, REQUEST_RULE } from './config.js';
import type { ProbeRun } from './probe-run.js';

// More than one set-up at a time: two set-ups of one checkout sent at once with different values
// (each answer must echo its own request, nothing 5xx, and the GET after must read one of them
// whole), and, given a second checkout, two checkouts set up with different values, each read back.
// A service that keeps the request being handled in a shared field, or caches a checkout under a
// key without its code, passes every probe that sends one request at a time to one checkout.

const GET_CONSISTENT: RuleId = 'checkout.get.consistent';

/** The GET's findings under checkout.get.consistent, had `setUp` been the set-up it read. */
function inconsistencies(setUp: Exchange, get: Exchange): Violation[] {
  const state = new CheckoutState(4);
  judgeExchange(setUp, state);
  return judgeExchange(get, state).violations.filter((v) => v.rule === GET_CONSISTENT);
}

export async function probeConcurrentSetUps(run: ProbeRun, format: Format, id: string): Promise<void> {
  const type = MEDIA_TYPE_OF[format];
  const headers = { accept: type, 'content-type': type };
  const url = run.config.checkoutUrl;
  const rule: RuleId = REQUEST_RULE[format];
  const setUp = (marker: string, address: Record<string, string>) =>
    run.send({
      method: 'POST',
      url,
      headers,
      body: checkoutRequestBody(format, returnUrlOfLength(84, marker), address),
    });
  const both = await Promise.all([
    setUp(`${id}-${format}-at-once-a`, SAMPLE_ADDRESS),
    setUp(`${id}-${format}-at-once-b`, OTHER_ADDRESS),
  ]);
  for (const exchange of both)
    run.record(exchange, {
      format,
      expect: {
        rule,
        answer: 'accepted',
        what: `one of two ${format.toUpperCase()} set-ups of one checkout sent at once`,
      },
    });
  const get = await run.send({ method: 'GET', url, headers: { accept: type } });
  // Either set-up may be the one stored; the GET must read one of them whole.
  run.record(get, { format, ignore: [GET_CONSISTENT] });
  const [first, second] = both as [Exchange, Exchange];
  const accepted = [first, second].filter((e) => (e.response?.status ?? 0) >= 200 && (e.response?.status ?? 0) < 300);
  if (accepted.length === 0 || !get.response || get.response.status >= 300) return;
  const findings = accepted.map((exchange) => inconsistencies(exchange, get));
  const unmet = findings.some((found) => found.length === 0)
    ? undefined
    : {
        ...(findings[0]?.[0] as Violation),
        message: `after two set-ups sent at once, GET checkout read neither whole: ${findings
          .map((found) => found.map((v) => v.message).join('; '))
          .join(' | ')}`,
      };
  run.tally.expected(get, GET_CONSISTENT, format, unmet);
}

/** Two checkouts set up with different values: each GET reads its own. */
export async function probeTwoCheckouts(run: ProbeRun, format: Format, id: string): Promise<void> {
  const other = run.config.secondCheckoutUrl;
  if (!other) return;
  const type = MEDIA_TYPE_OF[format];
  const headers = { accept: type, 'content-type': type };
  const rule: RuleId = REQUEST_RULE[format];
  const pairs: [string, Record<string, string>][] = [
    [run.config.checkoutUrl, SAMPLE_ADDRESS],
    [other, OTHER_ADDRESS],
  ];
  for (const [index, [url, address]] of pairs.entries()) {
    await run.probe(
      {
        method: 'POST',
        url,
        headers,
        body: checkoutRequestBody(format, returnUrlOfLength(86, `${id}-${format}-checkout${index}`), address),
      },
      {
        format,
        expect: { rule, answer: 'accepted', what: `a ${format.toUpperCase()} set-up of checkout ${index + 1} of two` },
      },
    );
  }
  for (const [url] of pairs) await run.probe({ method: 'GET', url, headers: { accept: type } }, { format });
}
