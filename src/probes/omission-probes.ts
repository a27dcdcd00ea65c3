import { writeResourceXml } from '../contract/xml-writer.js';
import { OTHER_ADDRESS, returnUrlOfLength, SAMPLE_ADDRESS } from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';

// Set-ups that leave members out, each after a full set-up of the same checkout: without ReturnUrl,
// without Billing, with an empty Address. The description marks no member required, so each must
// be accepted, answered without failing (an empty address written as `[]` is no object), and
// without the earlier set-up's values (the core judges checkout.echo against the set-up before).

function body(format: Format, model: Record<string, unknown>): string {
  return format === 'json' ? JSON.stringify(model) : writeResourceXml('checkout-request', model);
}

export async function probeOmissions(run: ProbeRun, format: Format, id: string): Promise<void> {
  const type = MEDIA_TYPE_OF[format];
  const headers = { accept: type, 'content-type': type };
  const rule = format === 'xml' ? 'format.xml-request' : 'checkout.response.schema';
  const full = { returnUrl: returnUrlOfLength(88, `${id}-${format}-full`), billing: { address: OTHER_ADDRESS } };
  const partial: [string, Record<string, unknown>][] = [
    ['without ReturnUrl', { billing: { address: SAMPLE_ADDRESS } }],
    ['without Billing', { returnUrl: returnUrlOfLength(90, `${id}-${format}-no-billing`) }],
    ['with an empty Address', { returnUrl: returnUrlOfLength(92, `${id}-${format}-empty`), billing: { address: {} } }],
  ];
  for (const [what, model] of partial) {
    const setUp = { method: 'POST', url: run.config.checkoutUrl, headers };
    await run.probe(
      { ...setUp, body: body(format, full) },
      {
        format,
        expect: { rule, answer: 'accepted', what: `a ${format.toUpperCase()} set-up with every member` },
      },
    );
    await run.probe(
      { ...setUp, body: body(format, model) },
      { format, expect: { rule, answer: 'accepted', what: `a ${format.toUpperCase()} set-up ${what}` } },
    );
  }
}
