import { sendFramed } from '../http/send-framed.js';
import { checkoutRequestBody, returnUrlOfLength } from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF, REQUEST_RULE } from './config.js';
import type { ProbeRun } from './probe-run.js';

// Set-ups framed as real clients frame them: streamed in chunks without a length (Java's
// HttpURLConnection in streaming mode, Node's fetch with a stream), behind Expect: 100-continue
// (libcurl and PHP's clients for larger bodies), with an Accept-Language a browser-side client
// passes on (the Amount stays a decimal number whatever the locale), and an empty body (refused
// or taken as an empty set-up, never 5xx).

export async function probeCheckoutFraming(run: ProbeRun, format: Format, id: string): Promise<void> {
  const url = run.config.checkoutUrl;
  const type = MEDIA_TYPE_OF[format];
  const headers = { accept: type, 'content-type': type };
  const rule = REQUEST_RULE[format];
  const name = format.toUpperCase();
  for (const [index, [framing, what]] of (
    [
      [{ chunked: true }, `a ${name} set-up sent Transfer-Encoding: chunked`],
      [{ expectContinue: true }, `a ${name} set-up sent with Expect: 100-continue`],
    ] as const
  ).entries()) {
    const body = Buffer.from(checkoutRequestBody(format, returnUrlOfLength(80, `${id}-${format}-framed${index}`)));
    const exchange = await run.send({ method: 'POST', url, headers, body }, true, (outgoing, timeoutMs) =>
      sendFramed({ ...outgoing, body }, framing, timeoutMs),
    );
    run.record(exchange, { format, expect: { rule, answer: 'accepted', what } });
  }
  await run.probe(
    {
      method: 'POST',
      url,
      headers: { ...headers, 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' },
      body: checkoutRequestBody(format, returnUrlOfLength(80, `${id}-${format}-language`)),
    },
    { format, expect: { rule, answer: 'accepted', what: `a ${name} set-up sent with Accept-Language: de-DE` } },
  );
  await run.probe(
    { method: 'POST', url, headers, body: '' },
    { format, refusalObserved: `POST checkout of an empty ${name} body refused` },
  );
}
