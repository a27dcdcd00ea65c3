import { type BodyFormat, type Document, formatOfMediaType, readDocument, sniffFormat } from './document.js';
import { encodingProblem } from './encoding.js';
import { bodyText, type Exchange, header, mediaType, type RecordedBody } from './exchange.js';
import type { Judging } from './judging.js';

// Format and HTTP rules that hold for every exchange, and the reading of both bodies that the
// resource rules then work on.

export interface ReadBodies {
  request?: Document;
  response?: Document;
  /** The format the request body was declared in (Content-Type), when JSON or XML. */
  requestFormat?: BodyFormat;
}

function isEmpty(body: RecordedBody | undefined): boolean {
  return !body || body.size === 0;
}

const QUALITY = /;\s*q=([0-9.]+)/i;

/** The format the client asked for: the Accept item of highest quality that names JSON or XML. */
export function acceptedFormat(accept: string | undefined): { format: BodyFormat; type: string } | undefined {
  if (!accept) return undefined;
  if (!accept.includes(',')) {
    // One item, as nearly every client sends: nothing to rank.
    const type = mediaType(accept) ?? '';
    const format = formatOfMediaType(type);
    const q = accept.includes(';') ? QUALITY.exec(accept) : null;
    return format && (!q || Number(q[1]) > 0) ? { format, type } : undefined;
  }
  const items = accept
    .split(',')
    .map((item, index) => {
      const q = QUALITY.exec(item);
      return { type: mediaType(item) ?? '', q: q ? Number(q[1]) : 1, index };
    })
    .filter((item) => item.q > 0 && formatOfMediaType(item.type))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  const best = items[0];
  if (!best) return undefined;
  return { format: formatOfMediaType(best.type) as BodyFormat, type: best.type };
}

export function checkFormat(exchange: Exchange, out: Judging): ReadBodies {
  const read: ReadBodies = {};
  const { request, response } = exchange;

  const requestContentType = header(request.headers, 'content-type');
  const requestType = mediaType(requestContentType);
  const requestFormat = formatOfMediaType(requestType);
  const requestText = bodyText(request.body, requestContentType);
  if (requestFormat && request.body?.codingError !== undefined) {
    out.facts.requestBody = requestFormat;
    const coding = header(request.headers, 'content-encoding') ?? 'its coding';
    out.add('format.well-formed', 'request', `request body in Content-Encoding ${coding}: ${request.body.codingError}`);
  } else if (
    requestFormat &&
    request.method.toUpperCase() === 'POST' &&
    (!request.body || (request.body.size === 0 && request.body.skipped === undefined))
  ) {
    // No document at all is not a JSON or XML document: a client that lost its body (PHP curl's
    // CURLOPT_POST without fields) sends a set-up the service reads as nothing.
    out.facts.requestBody = requestFormat;
    out.add('format.well-formed', 'request', `request declared ${requestType} but has no body`);
  } else if (requestFormat && request.body && request.body.size > 0 && requestText !== undefined) {
    read.requestFormat = requestFormat;
    out.facts.requestBody = requestFormat;
    const encoding = encodingProblem(requestText, request.body.size, requestFormat, requestContentType);
    if (encoding) out.add('format.well-formed', 'request', `request body declared ${requestType}: ${encoding}`);
    const result = readDocument(requestText, requestFormat);
    if (result.ok) {
      read.request = result.document;
      out.facts.requestDocument = requestFormat;
    } else out.add('format.well-formed', 'request', `request body declared ${requestType}: ${result.error}`);
  }

  // What the client asked for counts whether or not an answer came: a request unanswered still
  // tells which format the client speaks.
  const wanted = judgedAccept(header(request.headers, 'accept'));
  if (wanted) out.facts.accept = wanted.format;
  if (!response) return read;
  const facts = out.facts;
  facts.status = response.status;
  facts.accepted = response.status >= 200 && response.status < 300;
  facts.responseEmpty = isEmpty(response.body);
  if (response.status >= 500) {
    out.add('http.no-server-error', 'response', `${request.method} ${request.url} was answered ${response.status}`);
  }

  const contentType = header(response.headers, 'content-type');
  const declaredType = mediaType(contentType);
  const declared = formatOfMediaType(declaredType);
  const codingError = response.body?.codingError;
  if (codingError !== undefined) {
    // A client undoes the coding before it reads anything: a body that does not decode is no document.
    if (declared) facts.responseBody = declared;
    const coding = header(response.headers, 'content-encoding') ?? 'its coding';
    out.add('format.well-formed', 'response', `response body in Content-Encoding ${coding}: ${codingError}`);
    return read;
  }
  const responseText = bodyText(response.body, contentType);
  if (!response.body || isEmpty(response.body) || responseText === undefined) return read;
  facts.responseText = true;
  // An HTML page (a framework's error page) starts with "<" but is no XML document: it is judged
  // as what it is, a body that is neither JSON nor XML.
  const html = isHtmlPage(responseText, declaredType);
  const sniffed = html ? undefined : sniffFormat(responseText);
  const format = sniffed ?? (html ? undefined : declared);
  if (wanted && sniffed !== wanted.format) {
    const shown = sniffed ? sniffed.toUpperCase() : `${neitherText(html, declaredType)}`;
    const rule = wanted.format === 'json' ? 'format.json' : 'format.xml';
    const asked =
      wanted.accept.trim() === wanted.type ? wanted.type : `${wanted.accept.trim()} (preferring ${wanted.type})`;
    out.add(rule, 'response', `Accept: ${asked} was answered with ${shown}`);
  }
  if (!format) return read;
  facts.responseBody = format;

  if (sniffed && declared !== sniffed) {
    out.add(
      'format.response-content-type',
      'response',
      `body is ${sniffed.toUpperCase()} but Content-Type is ${declaredType ?? '(none)'}`,
    );
  }
  // Read on as well: the resource rules still say what the body holds, if a lenient client got it.
  const encoding = encodingProblem(responseText, response.body.size, format, contentType);
  if (encoding) out.add('format.well-formed', 'response', `response body: ${encoding}`);
  const result = readDocument(responseText, format);
  if (result.ok) {
    read.response = result.document;
    facts.responseDocument = format;
  } else out.add('format.well-formed', 'response', `response body: ${result.error}`);
  return read;
}

/** The types whose preference format.json and format.xml judge (RULES.md: with parameters, in lists). */
const JUDGED_TYPES = new Set(['application/json', 'application/xml', 'text/xml']);

/**
 * The format an Accept prefers, when the type it prefers is one the format rules judge: the item of
 * highest quality (the first of equals) that is not a wildcard. A client that prefers another type
 * (`text/html, application/xml;q=0.9`) is not judged; wildcards after the type change nothing.
 */
export function judgedAccept(accept: string | undefined): JudgedAccept | undefined {
  if (accept === undefined) return undefined;
  const known = judgedAccepts.get(accept);
  if (known !== undefined) return known ?? undefined;
  const judged = judgeAccept(accept);
  if (judgedAccepts.size >= JUDGED_ACCEPTS_KEPT) judgedAccepts.clear();
  judgedAccepts.set(accept, judged ?? null);
  return judged;
}

type JudgedAccept = Readonly<{ format: BodyFormat; type: string; accept: string }>;

/**
 * What judgedAccept made of each Accept value seen lately (null: not judged): clients send a
 * handful of values again and again, and every exchange is judged by it. Shared, so never changed.
 */
const judgedAccepts = new Map<string, JudgedAccept | null>();
const JUDGED_ACCEPTS_KEPT = 256;

function judgeAccept(accept: string | undefined): JudgedAccept | undefined {
  const wanted = acceptedFormat(accept);
  if (!wanted || accept === undefined || !JUDGED_TYPES.has(wanted.type)) return undefined;
  if (!accept.includes(',')) return { ...wanted, accept };
  const preferred = accept
    .split(',')
    .map((item, index) => {
      const q = QUALITY.exec(item);
      return { type: mediaType(item) ?? '', q: q ? Number(q[1]) : 1, index };
    })
    .filter((item) => item.q > 0 && item.type !== '' && !item.type.endsWith('/*'))
    .sort((a, b) => b.q - a.q || a.index - b.index)[0];
  return preferred?.type === wanted.type ? { ...wanted, accept } : undefined;
}

const HTML_START = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i;

/** Whether a body is an HTML page: declared text/html, or starting as one. */
export function isHtmlPage(text: string, declaredType: string | undefined): boolean {
  if (declaredType === 'text/html' || declaredType === 'application/xhtml+xml') return true;
  return HTML_START.test(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text.slice(0, 4096));
}

function neitherText(html: boolean, declaredType: string | undefined): string {
  if (html) return `an HTML page (${declaredType ?? 'no Content-Type'}), which is neither JSON nor XML`;
  return `a body that is neither JSON nor XML (${declaredType ?? 'no Content-Type'})`;
}
