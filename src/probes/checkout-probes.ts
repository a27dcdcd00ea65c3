import { checkoutRequestBody, MALFORMED_BODY, returnUrlOfLength } from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';

// Probes of POST and GET checkout/{code} in one format. Boundaries come first and the plain set-up
// last, so the closing GET is compared with what that set-up stored.

const LENGTH_RULE = 'checkout.return-url.length';

export async function probeCheckout(run: ProbeRun, format: Format, id: string): Promise<void> {
  const url = run.config.checkoutUrl;
  const type = MEDIA_TYPE_OF[format];
  const headers = { accept: type, 'content-type': type };

  if (!run.config.readOnly) {
    for (const [length, answer] of [
      [4, 'rejected'],
      [5, 'accepted'],
      [512, 'accepted'],
      [513, 'rejected'],
    ] as const) {
      await run.probe(
        {
          method: 'POST',
          url,
          headers,
          body: checkoutRequestBody(format, returnUrlOfLength(length, `${id}-${format}-${length}`)),
        },
        {
          format,
          expect: {
            rule: LENGTH_RULE,
            answer,
            what: `a set-up in ${format.toUpperCase()} with a ReturnUrl of ${length} characters`,
          },
          ignore: [LENGTH_RULE],
        },
      );
    }
    await run.probe({ method: 'POST', url, headers, body: MALFORMED_BODY[format] }, { format });

    const setUp = {
      method: 'POST',
      url,
      headers,
      body: checkoutRequestBody(format, returnUrlOfLength(80, `${id}-${format}-setup`)),
    };
    await run.probe(setUp, {
      format,
      expect:
        format === 'xml'
          ? { rule: 'format.xml-request', answer: 'accepted', what: 'a valid XML checkout set-up' }
          : { rule: 'checkout.response.schema', answer: 'accepted', what: 'a valid JSON checkout set-up' },
    });
  }
  await run.probe(
    { method: 'GET', url, headers: { accept: type } },
    {
      format,
      expect: { rule: 'checkout.get.shape', answer: 'accepted', what: `GET checkout in ${format.toUpperCase()}` },
    },
  );
}
