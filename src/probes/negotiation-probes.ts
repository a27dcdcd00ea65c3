import { checkoutRequestBody, returnUrlOfLength } from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';

// format.json and format.xml on POST checkout: a set-up written in one format and asking for the
// other. A service that answers in the format of the request body, not the one Accept names, passes
// every probe that sends both headers alike; this one tells them apart. The exchange is filed under
// the format asked for, whose rules judge the answer.

export const otherFormat = (format: Format): Format => (format === 'json' ? 'xml' : 'json');

export async function probeCrossedFormats(run: ProbeRun, format: Format, id: string): Promise<void> {
  if (!run.config.formats.includes(otherFormat(format))) return;
  const wanted = otherFormat(format);
  await run.probe(
    {
      method: 'POST',
      url: run.config.checkoutUrl,
      headers: { accept: MEDIA_TYPE_OF[wanted], 'content-type': MEDIA_TYPE_OF[format] },
      body: checkoutRequestBody(format, returnUrlOfLength(80, `${id}-${format}-as-${wanted}`)),
    },
    {
      format: wanted,
      expect:
        format === 'xml'
          ? { rule: 'format.xml-request', answer: 'accepted', what: 'an XML set-up that asks for JSON' }
          : { rule: 'format.json-request', answer: 'accepted', what: 'a JSON set-up that asks for XML' },
    },
  );
}
