import type { IncomingMessage } from 'node:http';
import { NOT_XML_CHARACTER } from '../contract/xml-writer.js';
import { formatOfMediaType, readDocument } from '../validate/document.js';
import { encodingProblem } from '../validate/encoding.js';
import { mediaType } from '../validate/exchange.js';
import { ADDRESS_FIELDS, modelOf } from '../validate/model.js';
import type { Dialect } from './dialect.js';
import { HttpError } from './http-error.js';
import { decodeRequestText, readSmallBody } from './request-body.js';

// What the reference service reads from a checkout set-up: the body as its Content-Type says,
// refused with 4xx as the real service refuses what it cannot bind, read by the dialect's hooks.

const SMALL_BODY_LIMIT = 1024 * 1024;

export async function readCheckoutRequest(
  request: IncomingMessage,
  dialect: Dialect,
): Promise<{ returnUrl?: string; address: Record<string, string>; bytes: Buffer }> {
  const type = mediaType(request.headers['content-type']);
  const format = formatOfMediaType(type);
  if (!format || (format === 'xml' && !dialect.acceptXmlRequests)) {
    throw new HttpError(415, `request Content-Type ${type ?? '(none)'} is not supported`, [
      dialect.acceptXmlRequests ? 'Send application/json or application/xml.' : 'Send application/json.',
    ]);
  }
  const bytes = await readSmallBody(request, SMALL_BODY_LIMIT);
  const refusal = dialect.refuseCheckout?.({ endpoint: 'checkout', method: 'POST', headers: request.headers }, bytes);
  if (refusal) throw new HttpError(refusal, 'this service does not take the request as it was sent');
  const text = decodeRequestText(bytes, format === 'xml' ? request.headers['content-type'] : undefined);
  if (text.trim() === '') return { address: {}, bytes };
  // As .NET's XmlReader: a declaration that names other bytes than were sent is refused.
  const encoding = format === 'xml' && encodingProblem(text, bytes.length, format, request.headers['content-type']);
  if (encoding) throw new HttpError(400, encoding, ['Send the encoding the declaration names.']);
  const read = readDocument(text, format);
  if (!read.ok) throw new HttpError(400, read.error, [`Send a well-formed ${format.toUpperCase()} checkout.`]);
  if (read.document.format === 'xml' && read.document.root.local !== 'Checkout') {
    throw new HttpError(400, `root element <${read.document.root.name}> is not <Checkout>`);
  }
  let model = modelOf(read.document, 'checkout-request');
  if (model === null || typeof model !== 'object' || Array.isArray(model)) {
    throw new HttpError(400, 'the checkout must be an object');
  }
  if (dialect.readCheckout) model = await dialect.readCheckout(model as Record<string, unknown>, text);
  const { returnUrl, billing } = model as { returnUrl?: unknown; billing?: unknown };
  const out: { returnUrl?: string; address: Record<string, string>; bytes: Buffer } = { address: {}, bytes };
  if (returnUrl !== undefined && returnUrl !== null) {
    if (typeof returnUrl !== 'string') throw new HttpError(400, 'returnUrl must be a string');
    const accepted = dialect.returnUrlAccepted
      ? dialect.returnUrlAccepted(returnUrl)
      : returnUrl.length >= dialect.returnUrlMin && returnUrl.length <= dialect.returnUrlMax;
    if (!accepted) {
      throw new HttpError(
        400,
        `returnUrl has ${returnUrl.length} characters; allowed ${dialect.returnUrlMin} to ${dialect.returnUrlMax}`,
        ['The length is counted in UTF-16 code units.'],
      );
    }
    out.returnUrl = returnUrl;
  }
  if (billing !== undefined && billing !== null) {
    // A member written null (JSON) or nil (XML) is one left out, as Json.NET, Jackson and
    // DataContractSerializer write an unset member.
    const address = (billing as { address?: unknown }).address ?? undefined;
    if (
      typeof billing !== 'object' ||
      Array.isArray(billing) ||
      (address !== undefined && (typeof address !== 'object' || Array.isArray(address)))
    ) {
      throw new HttpError(400, 'billing must be an object with an address object');
    }
    for (const field of ADDRESS_FIELDS) {
      const value = (address as Record<string, unknown> | undefined)?.[field];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') throw new HttpError(400, `billing.address.${field} must be a string`);
      out.address[field] = value;
    }
  }
  for (const value of [out.returnUrl ?? '', ...Object.values(out.address)] as string[]) {
    if (NOT_XML_CHARACTER.test(value))
      throw new HttpError(400, 'a field holds a control character', ['Remove control characters.']);
  }
  return out;
}
