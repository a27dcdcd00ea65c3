import { jsonNamesNotLowerCase, xmlNamesNotPascalCase } from './casing.js';
import {
  type Exchange,
  header,
  isMaskedWhole,
  knownBytes,
  type MultipartPart,
  mediaParam,
  mediaType,
} from './exchange.js';
import type { ReadBodies } from './format.js';
import type { Judging } from './judging.js';
import { describeStart, FILE_TYPE_NAMES, type FileKind, fileKindOf, UPLOAD_MEDIA_TYPES } from './magic.js';
import { displayPath, modelOf, schemaProblems, stringAt } from './model.js';
import { filePartOf, multipartParts } from './multipart.js';
import { rootProblems } from './xml.js';

// Rules of POST files/{code}: what a client may send, and what the service must answer.

const ALLOWED = Object.keys(UPLOAD_MEDIA_TYPES).join(', ');

interface SentFile {
  /** The declared type of the file (raw Content-Type or the file part's). */
  declared?: string;
  /** Its first bytes, when known. */
  head?: Buffer;
  size?: number;
}

/** The file an upload request carries: the raw body, or the file part of a multipart body. */
export function sentFileOf(exchange: Exchange): { file?: SentFile; multipart: boolean; problem?: string } {
  const contentType = header(exchange.request.headers, 'content-type');
  const type = mediaType(contentType);
  const body = exchange.request.body;
  if (type !== 'multipart/form-data') {
    const file: SentFile = { head: knownBytes(body) };
    if (type !== undefined) file.declared = type;
    // No body at all is an empty file, as a body of no bytes is.
    file.size = body ? body.size : 0;
    return { file, multipart: false };
  }
  let parts: MultipartPart[] | undefined = body?.parts;
  if (!parts) {
    const boundary = mediaParam(contentType, 'boundary');
    const bytes = knownBytes(body);
    if (!boundary) return { multipart: true, problem: 'multipart/form-data without a boundary parameter' };
    if (!bytes) return { multipart: true };
    parts = multipartParts(bytes, boundary);
  }
  const part = filePartOf(parts);
  if (!part) return { multipart: true, problem: 'multipart/form-data body has no part' };
  const file: SentFile = { size: part.size };
  const declared = mediaType(part.contentType);
  if (declared !== undefined) file.declared = declared;
  if (part.headBase64 !== undefined) file.head = Buffer.from(part.headBase64, 'base64');
  return { file, multipart: true };
}

export function checkUpload(exchange: Exchange, read: ReadBodies, out: Judging): void {
  const { request, response } = exchange;
  if (request.method.toUpperCase() !== 'POST') return;

  const sent = sentFileOf(exchange);
  let typeBad = false;
  if (sent.problem) {
    typeBad = true;
    out.facts.uploadTypeRefused = true;
    out.add('upload.content-type', 'request', sent.problem);
  } else if (sent.file) {
    const declared = sent.file.declared;
    const where = sent.multipart ? 'multipart file part Content-Type' : 'Content-Type';
    if (declared === undefined || !(declared in UPLOAD_MEDIA_TYPES)) {
      typeBad = true;
      out.facts.uploadTypeRefused = true;
      out.add('upload.content-type', 'request', `${where} is ${declared ?? '(none)'}; allowed: ${ALLOWED}`);
    } else if (sent.file.size === 0 && !request.body?.skipped) {
      // An empty body is no file of the type it is declared as: a client that lost its bytes.
      out.facts.uploadBytesKnown = true;
      out.add('upload.content-sniff', 'request', `declared ${declared} but the body is empty`);
    } else if (sent.file.head && (sent.file.size ?? 1) > 0) {
      out.facts.uploadBytesKnown = true;
      const expected = UPLOAD_MEDIA_TYPES[declared] as FileKind;
      const actual = fileKindOf(sent.file.head);
      if (actual !== expected) {
        out.add(
          'upload.content-sniff',
          'request',
          `declared ${declared} but the body is ${actual ? `a ${actual}` : describeStart(sent.file.head)}`,
        );
      }
    }
  }

  if (!response || response.status < 200 || response.status >= 300) return;
  if (typeBad) {
    out.add(
      'upload.content-type',
      'response',
      `the service accepted (${response.status}) an upload of a type it must refuse`,
    );
  }

  const document = read.response;
  if (!document) {
    if (!response.body?.skipped && (!response.body || response.body.size === 0)) {
      out.add('upload.response.schema', 'response', `upload answered ${response.status} with no body`);
    }
    return;
  }
  if (document.format === 'json') {
    for (const path of jsonNamesNotLowerCase(document.value)) {
      out.add('upload.json.casing', 'response', `response property ${path} does not start lower-case`, path);
    }
  } else {
    for (const path of xmlNamesNotPascalCase(document.root)) {
      out.add('upload.xml.casing', 'response', `response element ${path} is not PascalCase`, path);
    }
    for (const problem of rootProblems(document.root, 'UploadResult'))
      out.add('upload.xml.root', 'response', `response ${problem}`);
  }
  const model = modelOf(document, 'upload-result');
  const shapeMasked = () => {
    out.facts.responseShapeMasked = true;
  };
  for (const problem of schemaProblems(model, 'upload-result', document.format, shapeMasked)) {
    const path = displayPath(problem.path, document.format);
    out.add('upload.response.schema', 'response', problem.message, path);
  }

  // A FileType the recording masked (--redact FileType) says nothing of the file (see isMasked).
  const answeredType = stringAt(model, '/fileType');
  const fileType = answeredType !== undefined && isMaskedWhole(answeredType) ? undefined : answeredType;
  const kind = fileKindOf(sent.file?.head);
  if (fileType !== undefined && kind) out.facts.fileTypeComparable = true;
  if (fileType !== undefined && kind && !FILE_TYPE_NAMES[kind].includes(fileType.toUpperCase())) {
    out.add(
      'upload.file-type',
      'response',
      `FileType is "${fileType}" but the bytes sent are a ${kind} (expected ${FILE_TYPE_NAMES[kind].join(' or ')})`,
      displayPath('/fileType', document.format),
    );
  }
}
