import type { Outgoing } from '../http/send.js';
import { type Exchange, header } from '../validate/exchange.js';
import { checkoutRequestBody, returnUrlOfLength } from './checkout-request.js';
import type { ProbeRun } from './probe-run.js';

// observe.methods: what the methods the interface does not name get, on a checkout URL (HEAD,
// OPTIONS, PUT, DELETE) and an upload URL (GET). The description is silent on them, so their
// answers are recorded, never judged, except that a 5xx among them fails http.no-server-error as any
// 5xx does (the core judges it). PUT and DELETE may change what they reach: they go to the second
// checkout (the one the suite placed, or the one --other-checkout-url gave it to set up), never to
// the checkout the rest of the run reads, and are not sent with --read-only.

const RULE = 'observe.methods';

interface MethodAnswer {
  status: number | string;
  allow?: string;
  body: boolean;
}

function answerOf(exchange: Exchange): MethodAnswer {
  const { response } = exchange;
  if (!response) return { status: `no answer (${exchange.error})`, body: false };
  const allow = header(response.headers, 'allow');
  return { status: response.status, ...(allow ? { allow } : {}), body: (response.body?.size ?? 0) > 0 };
}

const serverError = (answer: MethodAnswer) => typeof answer.status !== 'number' || answer.status >= 500;

export async function probeMethods(run: ProbeRun, id: string): Promise<void> {
  const { checkoutUrl, secondCheckoutUrl, uploadUrls, readOnly } = run.config;
  const requests: [string, Outgoing][] = [
    ['HEAD checkout', { method: 'HEAD', url: checkoutUrl }],
    ['OPTIONS checkout', { method: 'OPTIONS', url: checkoutUrl }],
  ];
  if (!readOnly && secondCheckoutUrl) {
    requests.push([
      'PUT checkout',
      {
        method: 'PUT',
        url: secondCheckoutUrl,
        headers: { 'content-type': 'application/json' },
        body: checkoutRequestBody('json', returnUrlOfLength(80, `${id}-put`)),
      },
    ]);
    requests.push(['DELETE checkout', { method: 'DELETE', url: secondCheckoutUrl }]);
  }
  const uploadUrl = uploadUrls.content ?? uploadUrls.cover;
  if (uploadUrl) requests.push(['GET files', { method: 'GET', url: uploadUrl }]);

  const answers: [string, MethodAnswer][] = [];
  for (const [what, outgoing] of requests) {
    // Recorded as any request: the core judges a 5xx (http.no-server-error) and nothing else of it.
    const exchange = await run.probe(outgoing, { format: 'any' });
    answers.push([what, answerOf(exchange)]);
  }
  // A 5xx among them is listed first: it is the one a reader must see.
  const ordered = [...answers.filter(([, a]) => serverError(a)), ...answers.filter(([, a]) => !serverError(a))];
  for (const [what, answer] of ordered) run.observe(RULE, what, answer);
  if (readOnly) run.observe(RULE, 'PUT and DELETE checkout', 'not sent (--read-only)');
  else if (!secondCheckoutUrl)
    run.observe(RULE, 'PUT and DELETE checkout', 'not sent: there is no second checkout to send them to');
}
