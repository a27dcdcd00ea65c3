// How the reference service speaks. The defaults are the conformant behaviour, as the real service
// behaves; tests build variants ("mutants") that each break one rule by changing one knob.

import type { IncomingHttpHeaders } from 'node:http';
import type { FileKind } from '../validate/magic.js';

export interface OutgoingAnswer {
  endpoint: 'orders' | 'checkout' | 'upload' | 'oauth' | 'other';
  method: string;
  /** The request's path, so that a variant can tell resources apart. */
  path: string;
  format: 'json' | 'xml';
  status: number;
  headers: Record<string, string>;
  body: string;
  /** How the body is written as bytes: UTF-8 unless a variant says otherwise (utf16le with a BOM). */
  encoding?: 'utf8' | 'latin1' | 'utf16le' | 'utf16be';
  /** The request's Accept-Encoding, so that a variant can compress as its stack negotiates. */
  acceptEncoding?: string;
  /** The request's Accept-Language, so that a variant can format as its locale says. */
  acceptLanguage?: string;
  /** A content coding to write the bytes in (Content-Encoding is set to it). */
  coding?: 'gzip' | 'deflate' | 'br';
}

/** A request as a variant's hooks see it. */
export interface IncomingView {
  endpoint: OutgoingAnswer['endpoint'];
  method: string;
  headers: IncomingHttpHeaders;
}

export interface Dialect {
  /** ReturnUrl lengths accepted, in UTF-16 code units. */
  returnUrlMin: number;
  returnUrlMax: number;
  /** Upload media types accepted, raw or as the multipart file part's type. */
  uploadTypes: string[];
  acceptMultipart: boolean;
  /** Variants that take a form's first part for its file, whatever it is. */
  multipartFirstPartIsFile?: boolean;
  /** Variants whose form reader fails (500) on a file name outside ASCII. */
  multipartFailsOnNonAsciiFilename?: boolean;
  /** Kinds of file an item's content slot takes (a book's content is a PDF); every kind when absent. */
  contentKinds?: FileKind[];
  /** The FileType answered for an upload: the kind its bytes are, unless a variant says otherwise. */
  fileTypeOf?: (upload: {
    kind: FileKind;
    declaredType?: string;
    fileName?: string;
    multipart: boolean;
    /** The file's first bytes, for variants that tell kinds apart by a table of their own. */
    head: Buffer;
  }) => string;
  /** Variants whose form reader takes the file from this field alone, and fails (500) on another. */
  multipartFileField?: string;
  /** A status to refuse an upload with from its head alone, before its bytes are read (411, 415, 417...). */
  refuseUpload?: (request: IncomingView) => number | undefined;
  /** Variants that refuse (415) a file by its first bytes, as a table of magic numbers of their own does. */
  refuseFile?: (head: Buffer) => boolean;
  /** The type a form's file part is taken for (busboy reads a part without one as text/plain), for variants that guess it. */
  multipartTypeOf?: (declared: string, fileName: string | undefined) => string;
  /** Variants behind a cache keyed by URL and body: a set-up sent before is answered as then, and never stored. */
  cachesSetUpsByBody?: boolean;
  /** Variants whose handler fails (500) on a file it received, by its size or how it came. */
  uploadFails?: (file: { size: number; multipart: boolean }) => boolean;
  acceptXmlRequests: boolean;
  /** false: answer JSON whatever Accept says. */
  honourAccept: boolean;
  /** Prefix bound to the XMLSchema-instance namespace: xsi (XmlSerializer) or i (DataContractSerializer). */
  xmlNilPrefix: string;
  /** Pretty-printed CRLF JSON as the real service writes it, or compact. */
  prettyJson: boolean;
  /** Status of a checkout set-up: 201 with Location as the real service, or 200. */
  setUpStatus: 200 | 201;
  /** Members added to the billing address in answers (the real service adds email). */
  extraAddressMembers: Record<string, string>;
  /** false: a POST to a checkout that was set up already answers, and keeps, the first set-up. */
  replaceSetUp: boolean;
  /** Answers sent in chunks, without Content-Length. */
  chunked: boolean;
  /** Whether a ReturnUrl is accepted; without it, its UTF-16 length must lie in min..max. */
  returnUrlAccepted?: (value: string) => boolean;
  /** What the service makes of a checkout request the core read: variants misread it here (and may await). */
  readCheckout?: (
    model: Record<string, unknown>,
    text: string,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Variants that keep an earlier set-up's members that a new set-up leaves out (a fill, not a replace). */
  keepUnsentMembers?: boolean;
  /** A 4xx status to refuse a checkout request's bytes with before reading them, for variants too strict. */
  refuseCheckout?: (request: IncomingView, body: Buffer) => number | undefined;
  /** The format to answer in, for variants that choose it by something other than Accept. */
  answerFormat?: (request: IncomingView) => 'json' | 'xml' | undefined;
  /** Last word on every answer: variants change bodies, statuses or headers here. */
  rewrite?: (answer: OutgoingAnswer) => OutgoingAnswer;
}

export const UPLOAD_TYPES = ['application/pdf', 'image/png', 'image/jpeg'];

export const CONFORMANT: Dialect = {
  returnUrlMin: 5,
  returnUrlMax: 512,
  uploadTypes: UPLOAD_TYPES,
  acceptMultipart: true,
  acceptXmlRequests: true,
  honourAccept: true,
  xmlNilPrefix: 'xsi',
  prettyJson: true,
  setUpStatus: 201,
  extraAddressMembers: { email: 'billing@reference.invalid' },
  replaceSetUp: true,
  chunked: false,
};
