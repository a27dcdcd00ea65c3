import { checkoutRequestBody, returnUrlOfLength } from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';
import { SAMPLE_FILES } from './sample-files.js';

// Accept as clients write it, not only as one bare type: with parameters, text/xml, lists with
// q-values and `*/*` after the type (axios sends `application/json, text/plain, */*`; ASP.NET
// Core's default formatter choice ignores Accept once `*/*` is in it). The core judges the answer
// by the preferred type (format.json, format.xml). A GET also asks for compressed answers, as
// browsers and curl --compressed do: the core reads the coding the service chose.

const GET_ACCEPTS: Record<Format, string[]> = {
  json: ['application/json, text/plain, */*', 'application/xml;q=0.5, application/json'],
  // text/xml alone is asked by the profile's probe (observe.text-xml), judged by the same reading.
  xml: [
    'application/xml; charset=utf-8',
    'application/xml, */*;q=0.8',
    'application/json;q=0.5, application/xml;q=0.9, */*;q=0.1',
  ],
};

/** The list each format's POST checkout and upload ask with: the type first, anything after it. */
const LIST_ACCEPT: Record<Format, string> = {
  json: 'application/json, text/plain, */*',
  xml: 'application/xml, text/xml;q=0.9, */*;q=0.8',
};

export const ACCEPT_ENCODING = 'gzip, deflate, br';

export async function probeAcceptLists(run: ProbeRun, format: Format, id: string): Promise<void> {
  const url = run.config.checkoutUrl;
  if (!run.config.readOnly) {
    await run.probe(
      {
        method: 'POST',
        url,
        headers: { accept: LIST_ACCEPT[format], 'content-type': MEDIA_TYPE_OF[format] },
        body: checkoutRequestBody(format, returnUrlOfLength(80, `${id}-${format}-accept-list`)),
      },
      {
        format,
        expect:
          format === 'xml'
            ? { rule: 'format.xml-request', answer: 'accepted', what: `an XML set-up with Accept: ${LIST_ACCEPT.xml}` }
            : {
                rule: 'format.json-request',
                answer: 'accepted',
                what: `a JSON set-up with Accept: ${LIST_ACCEPT.json}`,
              },
      },
    );
  }
  for (const accept of GET_ACCEPTS[format]) await run.probe({ method: 'GET', url, headers: { accept } }, { format });
  await run.probe(
    { method: 'GET', url, headers: { accept: MEDIA_TYPE_OF[format], 'accept-encoding': ACCEPT_ENCODING } },
    { format },
  );
}

/** An upload asking with a list, as the checkout probes do. */
export async function probeUploadAccept(run: ProbeRun, format: Format): Promise<void> {
  const url = run.config.uploadUrls.content ?? run.config.uploadUrls.cover;
  // The PDF these send is one of the types asked for (--upload-types) or none is sent.
  if (!url || !run.config.uploadTypes.includes('pdf')) return;
  await run.probe(
    {
      method: 'POST',
      url,
      headers: { accept: LIST_ACCEPT[format], 'content-type': 'application/pdf', 'accept-encoding': ACCEPT_ENCODING },
      body: SAMPLE_FILES.pdf,
    },
    {
      format,
      expect: { rule: 'upload.raw', answer: 'accepted', what: `a raw PDF upload with Accept: ${LIST_ACCEPT[format]}` },
    },
  );
}
