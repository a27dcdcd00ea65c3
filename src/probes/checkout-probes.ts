import { probeAcceptLists } from './accept-probes.js';
import { probeCheckoutFraming } from './checkout-framing-probes.js';
import { checkoutRequestBody, MALFORMED_BODY, returnUrlOfLength } from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF } from './config.js';
import { probeCrossedFormats } from './negotiation-probes.js';
import type { ProbeRun } from './probe-run.js';
import { probeRealValues } from './real-value-probes.js';
import { probeRequestForms } from './request-form-probes.js';
import { probeReturnUrlLengths } from './return-url-probes.js';
import { probeXmlShapes } from './xml-shape-probes.js';
import { probeXmlSpellings } from './xml-spelling-probes.js';

// Probes of POST and GET checkout/{code} in one format. Boundaries and the other forms of a
// request come first and the plain set-up last, so the closing GET is compared with what that
// set-up stored.

export async function probeCheckout(run: ProbeRun, format: Format, id: string): Promise<void> {
  const url = run.config.checkoutUrl;
  const type = MEDIA_TYPE_OF[format];
  const headers = { accept: type, 'content-type': type };

  // The second order's checkout has not been set up yet (the state probes set it up later): its
  // GET is the one a client makes to show a checkout before anything was sent, which a service
  // that reads the set-up's members without asking whether there are any answers with a 5xx.
  const fresh = run.config.secondCheckoutUrl;
  if (fresh) await run.probe({ method: 'GET', url: fresh, headers: { accept: type } }, { format });

  if (!run.config.readOnly) {
    await probeReturnUrlLengths(run, format, id);
    await run.probe({ method: 'POST', url, headers, body: MALFORMED_BODY[format] }, { format, refusalMeant: true });
    await probeRequestForms(run, format, id);
    await probeCrossedFormats(run, format, id);
    if (format === 'xml') await probeXmlShapes(run, id);
    await probeRealValues(run, format, id);
    if (format === 'xml') await probeXmlSpellings(run, id);
    await probeCheckoutFraming(run, format, id);
    await probeAcceptLists(run, format, id);

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
          : { rule: 'format.json-request', answer: 'accepted', what: 'a valid JSON checkout set-up' },
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
