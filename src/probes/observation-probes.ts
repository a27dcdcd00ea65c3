import { Readable } from 'node:stream';
import { request } from 'undici';
import { recordBody } from '../http/send.js';
import { sniffFormat } from '../validate/document.js';
import { bodyText, type Exchange, endpointOf, header, mediaType } from '../validate/exchange.js';
import { isHtmlPage } from '../validate/format.js';
import { parseXml } from '../validate/xml.js';
import { cachingOf } from './caching-observation.js';
import { probeMethods } from './method-probes.js';
import type { ProbeRun } from './probe-run.js';
import { SAMPLE_FILES } from './sample-files.js';
import { uploadProgress } from './upload-progress.js';

// What the description leaves open, recorded for the report's service profile; never a verdict.

/** The answer's body as text, decoded as the core decodes it. */
const answerText = (exchange: Exchange) =>
  bodyText(exchange.response?.body, header(exchange.response?.headers, 'content-type'));

function formatOf(exchange: Exchange): string {
  const text = answerText(exchange);
  if (!exchange.response) return `no answer (${exchange.error})`;
  if (!text) return `empty body (${exchange.response.status})`;
  if (isHtmlPage(text, mediaType(header(exchange.response.headers, 'content-type'))))
    return `an HTML page (${header(exchange.response.headers, 'content-type') ?? 'no Content-Type'})`;
  return (
    sniffFormat(text)?.toUpperCase() ??
    `neither JSON nor XML (${header(exchange.response.headers, 'content-type') ?? 'no Content-Type'})`
  );
}

/** A URL like `given` whose last segment (the opaque code) is one the service cannot know. */
function withUnknownCode(given: string): string {
  const url = new URL(given);
  url.pathname = url.pathname.replace(/[^/]+\/?$/, `print-conformance-unknown-${Date.now().toString(36)}`);
  return url.href;
}

function membersOf(exchange: Exchange): string {
  const text = answerText(exchange) ?? '';
  const contentType = header(exchange.response?.headers, 'content-type');
  if (text && isHtmlPage(text, mediaType(contentType))) return `an HTML page (${contentType ?? 'no Content-Type'})`;
  const format = sniffFormat(text);
  if (format === 'json') {
    try {
      const value = JSON.parse(text);
      return `JSON {${value && typeof value === 'object' ? Object.keys(value).join(', ') : typeof value}}`;
    } catch {
      return 'malformed JSON';
    }
  }
  if (format === 'xml') {
    const parsed = parseXml(text);
    return parsed.ok
      ? `XML <${parsed.root.name}> with ${parsed.root.children.map((c) => c.name).join(', ') || 'no children'}`
      : 'malformed XML';
  }
  return text ? `text (${header(exchange.response?.headers, 'content-type') ?? 'no Content-Type'})` : 'no body';
}

export async function probeObservations(run: ProbeRun, id: string): Promise<void> {
  const { checkoutUrl, uploadUrls } = run.config;
  const plain = await run.probe({ method: 'GET', url: checkoutUrl }, { format: 'any' });
  run.observe('observe.default-format', 'GET checkout without Accept', formatOf(plain));
  if (plain.response) run.observe('observe.caching', 'GET checkout', cachingOf(plain, run.config.formats.length));

  const textXml = await run.probe(
    { method: 'GET', url: checkoutUrl, headers: { accept: 'text/xml' } },
    { format: 'any' },
  );
  run.observe('observe.text-xml', 'Accept: text/xml answered in', formatOf(textXml));

  const unknownCheckout = await run.probe(
    { method: 'GET', url: withUnknownCode(checkoutUrl), headers: { accept: 'application/json' } },
    { format: 'any', refusalMeant: true },
  );
  run.observe(
    'observe.unknown-code',
    'GET checkout/{unknown}',
    unknownCheckout.response?.status ?? unknownCheckout.error,
  );
  const uploadUrl = uploadUrls.content ?? uploadUrls.cover;
  if (uploadUrl && !run.config.readOnly) {
    const unknownUpload = await run.probe(
      {
        method: 'POST',
        url: withUnknownCode(uploadUrl),
        headers: { accept: 'application/json', 'content-type': 'application/pdf' },
        body: SAMPLE_FILES.pdf,
      },
      { format: 'any', refusalMeant: true },
    );
    run.observe('observe.unknown-code', 'POST files/{unknown}', unknownUpload.response?.status ?? unknownUpload.error);
  }

  if (run.config.credentialHeaders.length > 0) {
    const anonymous = await run.probe(
      { method: 'GET', url: checkoutUrl, headers: { accept: 'application/json' } },
      { format: 'any' },
      false,
    );
    run.observe('observe.auth', 'GET checkout without credentials', anonymous.response?.status ?? anonymous.error);
  } else {
    run.observe('observe.auth', 'credentials', 'none configured');
  }

  if (run.config.uploadSize && uploadUrl && !run.config.readOnly) {
    const size = run.config.uploadSize;
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const meter = uploadProgress({ total: size, write: run.progress, enabled: Boolean(process.stderr.isTTY) });
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent >= size) return this.push(null);
        const n = Math.min(chunk.length, size - sent);
        this.push(
          sent === 0 ? Buffer.concat([SAMPLE_FILES.pdf.subarray(0, 9), chunk.subarray(9, n)]) : chunk.subarray(0, n),
        );
        sent += n;
        meter.sent(n);
      },
    });
    const headers = {
      ...run.config.headers,
      'content-type': 'application/pdf',
      'content-length': String(size),
      accept: 'application/json',
    };
    const first = Buffer.concat([SAMPLE_FILES.pdf.subarray(0, 9), chunk.subarray(9, 64)]);
    const exchange: Exchange = {
      request: { method: 'POST', url: uploadUrl, headers, body: { size, headBase64: first.toString('base64') } },
    };
    const started = performance.now();
    try {
      // Streamed, not through send(): the body is generated as it goes and never held whole.
      // The upload itself may take long; the whole exchange is still bounded, so a service that
      // trickles its answer cannot hold the run forever.
      const answer = await request(uploadUrl, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(Math.max(run.config.timeoutMs * 4, 120_000)),
      });
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      const responseHeaders = Object.fromEntries(
        Object.entries(answer.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
      );
      exchange.response = {
        status: answer.statusCode,
        headers: responseHeaders,
        body: recordBody(bytes, responseHeaders['content-type']),
      };
      run.observe('observe.large-upload', `${size} bytes`, {
        status: answer.statusCode,
        seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      });
    } catch (error) {
      exchange.error = (error as Error).message;
      run.observe('observe.large-upload', `${size} bytes`, { error: (error as Error).message });
    } finally {
      meter.stop();
    }
    run.record(exchange, { format: 'any' });
  }
  // Last: PUT and DELETE may change what they reach.
  await probeMethods(run, id);
}

/** Status codes and error bodies, from every exchange the run made. */
export function summariseExchanges(run: ProbeRun): void {
  for (const exchange of run.exchanges) {
    const endpoint = endpointOf(exchange.request.url);
    if (!exchange.response || endpoint.kind === 'other') continue;
    const { status } = exchange.response;
    const what = `${exchange.request.method} ${endpoint.kind === 'checkout' ? 'checkout' : 'files'} ${status < 400 ? 'accepted' : 'refused'}`;
    const seen = run.observationsOf('observe.status-codes') as Record<string, string[]>;
    const location = header(exchange.response.headers, 'location') ? ' + Location' : '';
    const entry = `${status}${location}`;
    seen[what] = [...new Set([...(seen[what] ?? []), entry])];
    if (status >= 400) {
      const shapes = run.observationsOf('observe.error-body') as Record<string, string[]>;
      shapes[String(status)] = [...new Set([...(shapes[String(status)] ?? []), membersOf(exchange)])];
    }
  }
}
