import { checkoutRequestBody, OTHER_ADDRESS, returnUrlOfLength } from './checkout-request.js';
import { probeConcurrentSetUps, probeTwoCheckouts } from './concurrency-probes.js';
import { type Format, MEDIA_TYPE_OF, REQUEST_RULE } from './config.js';
import { otherFormat } from './negotiation-probes.js';
import { probeOmissions } from './omission-probes.js';
import type { ProbeRun } from './probe-run.js';

// State across calls, after each format's own set-up and GET: a second set-up of the same checkout
// with other values, then a GET in the other format. The core judges the POST's answer
// (checkout.echo, checkout.status.open) and the GET against the later set-up
// (checkout.get.consistent): a service that keeps the first set-up, or answers a GET from what it
// answered before in that format, shows here.

export async function probeCheckoutState(run: ProbeRun, formats: Format[], id: string): Promise<void> {
  const url = run.config.checkoutUrl;
  for (const format of formats) {
    await probeOmissions(run, format, id);
    await probeConcurrentSetUps(run, format, id);
    if (format === formats[0]) await probeTwoCheckouts(run, format, id);
    await probeRepeatedSetUp(run, format, id);
    const type = MEDIA_TYPE_OF[format];
    await run.probe(
      {
        method: 'POST',
        url,
        headers: { accept: type, 'content-type': type },
        body: checkoutRequestBody(format, returnUrlOfLength(96, `${id}-${format}-again`), OTHER_ADDRESS),
      },
      {
        format,
        // Accepted as any valid set-up is: the boundary probes already set up this checkout.
        expect: {
          rule: REQUEST_RULE[format],
          answer: 'accepted',
          what: `a second ${format.toUpperCase()} set-up of the same checkout, with another ReturnUrl and address`,
        },
      },
    );
    const read = formats.includes(otherFormat(format)) ? otherFormat(format) : format;
    await run.probe(
      { method: 'GET', url, headers: { accept: MEDIA_TYPE_OF[read] } },
      {
        format: read,
        expect: {
          rule: 'checkout.get.shape',
          answer: 'accepted',
          what: `GET checkout in ${read.toUpperCase()} after a ${format.toUpperCase()} set-up`,
        },
      },
    );
  }
}

/**
 * Set-ups A, B, then A again, byte for byte, and a GET: the GET reads A. A cache keyed by the
 * body (in front of the service, or in it) answers the third from the first and never stores it,
 * so the GET reads B.
 */
async function probeRepeatedSetUp(run: ProbeRun, format: Format, id: string): Promise<void> {
  const url = run.config.checkoutUrl;
  const type = MEDIA_TYPE_OF[format];
  const first = checkoutRequestBody(format, returnUrlOfLength(90, `${id}-${format}-repeat-a`));
  const second = checkoutRequestBody(format, returnUrlOfLength(90, `${id}-${format}-repeat-b`), OTHER_ADDRESS);
  for (const [body, what] of [
    [first, 'a set-up A'],
    [second, 'a set-up B of the same checkout'],
    [first, 'set-up A sent again after B, byte for byte'],
  ] as const) {
    await run.probe(
      { method: 'POST', url, headers: { accept: type, 'content-type': type }, body },
      { format, expect: { rule: REQUEST_RULE[format], answer: 'accepted', what: `${what} (${format.toUpperCase()})` } },
    );
  }
  await run.probe(
    { method: 'GET', url, headers: { accept: type } },
    {
      format,
      expect: {
        rule: 'checkout.get.shape',
        answer: 'accepted',
        what: `GET checkout in ${format.toUpperCase()} after set-ups A, B, A`,
      },
    },
  );
}
