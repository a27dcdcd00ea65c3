import { writeResourceXml } from '../contract/xml-writer.js';
import { OTHER_ADDRESS, returnUrlOfLength, SAMPLE_ADDRESS } from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF, REQUEST_RULE } from './config.js';
import type { ProbeRun } from './probe-run.js';

// Set-ups that leave members out, after a full set-up of the same checkout: without ReturnUrl,
// without Billing, with an empty Address. The description marks no member required, so each must
// be accepted, answered without failing (an empty address written as `[]` is no object), and
// without the earlier set-up's values (the core judges checkout.echo against the set-up before).

function body(format: Format, model: Record<string, unknown>): string {
  return format === 'json' ? JSON.stringify(model) : writeResourceXml('checkout-request', model);
}

export async function probeOmissions(run: ProbeRun, format: Format, id: string): Promise<void> {
  const type = MEDIA_TYPE_OF[format];
  const rule = REQUEST_RULE[format];
  // Each set-up leaves out what the one before it sent: a kept value can only come from there.
  const steps: [string, Record<string, unknown>][] = [
    [
      'with every member',
      { returnUrl: returnUrlOfLength(88, `${id}-${format}-full`), billing: { address: OTHER_ADDRESS } },
    ],
    ['without ReturnUrl', { billing: { address: SAMPLE_ADDRESS } }],
    ['without Billing', { returnUrl: returnUrlOfLength(90, `${id}-${format}-no-billing`) }],
    ['with an empty Address', { returnUrl: returnUrlOfLength(92, `${id}-${format}-empty`), billing: { address: {} } }],
  ];
  for (const [what, model] of steps) {
    await run.probe(
      {
        method: 'POST',
        url: run.config.checkoutUrl,
        headers: { accept: type, 'content-type': type },
        body: body(format, model),
      },
      { format, expect: { rule, answer: 'accepted', what: `a ${format.toUpperCase()} set-up ${what}` } },
    );
  }
}
