import { describe, expect, it } from 'vitest';
import { validateExchange } from '../../src/validate/index.js';
import {
  JPEG_BYTES,
  multipartBody,
  PDF_BYTES,
  PNG_BYTES,
  uploadPost,
  uploadResultJson,
  uploadResultXml,
  XML_TYPE,
} from '../helpers/exchanges.js';

const failing = (exchange: Parameters<typeof validateExchange>[0]) =>
  validateExchange(exchange)
    .map((v) => `${v.rule}@${v.side}`)
    .sort();

describe('upload.content-type', () => {
  it('accepts the three types, with parameters', () => {
    expect(failing(uploadPost('application/pdf', PDF_BYTES))).toEqual([]);
    expect(failing(uploadPost('image/png', PNG_BYTES, uploadResultJson('PNG')))).toEqual([]);
    expect(failing(uploadPost('image/jpeg; charset=binary', JPEG_BYTES, uploadResultJson('JPEG')))).toEqual([]);
  });

  it('flags another type on the request side, and a 2xx answer to it on the response side', () => {
    expect(failing(uploadPost('text/plain', PDF_BYTES, '{"message":"unsupported"}', 415))).toEqual([
      'upload.content-type@request',
    ]);
    expect(failing(uploadPost('application/octet-stream', PDF_BYTES))).toEqual([
      'upload.content-type@request',
      'upload.content-type@response',
    ]);
  });

  it('reads the file part of a multipart body', () => {
    const good = multipartBody([{ name: 'file', filename: 'book.pdf', type: 'application/pdf', bytes: PDF_BYTES }]);
    expect(failing(uploadPost(good.contentType, good.bytes))).toEqual([]);
    const bad = multipartBody([
      { name: 'role', bytes: Buffer.from('content') },
      { name: 'file', filename: 'book.txt', type: 'text/plain', bytes: PDF_BYTES },
    ]);
    expect(failing(uploadPost(bad.contentType, bad.bytes, '{}', 415))).toEqual(['upload.content-type@request']);
  });

  it('flags a multipart body without a boundary', () => {
    expect(failing(uploadPost('multipart/form-data', PDF_BYTES, '{}', 400))).toEqual(['upload.content-type@request']);
  });
});

describe('upload.content-sniff', () => {
  it('flags a PNG labelled application/pdf, raw or in a part', () => {
    expect(failing(uploadPost('application/pdf', PNG_BYTES, uploadResultJson('PNG')))).toEqual([
      'upload.content-sniff@request',
    ]);
    const part = multipartBody([{ name: 'file', filename: 'x.pdf', type: 'application/pdf', bytes: JPEG_BYTES }]);
    expect(failing(uploadPost(part.contentType, part.bytes, uploadResultJson('JPG')))).toEqual([
      'upload.content-sniff@request',
    ]);
  });
});

describe('upload.file-type', () => {
  it('compares FileType with the magic bytes, case-insensitively, JPG for JPEG too', () => {
    expect(failing(uploadPost('image/jpeg', JPEG_BYTES, uploadResultJson('jpg')))).toEqual([]);
    expect(failing(uploadPost('image/png', PNG_BYTES, uploadResultJson('PDF')))).toEqual(['upload.file-type@response']);
  });

  it('uses the first bytes kept for a large body that was not recorded whole', () => {
    const exchange = uploadPost('application/pdf', PDF_BYTES, uploadResultJson('PNG'));
    exchange.request.body = { size: 1 << 30, headBase64: PDF_BYTES.subarray(0, 16).toString('base64'), sha256: 'x' };
    expect(failing(exchange)).toEqual(['upload.file-type@response']);
  });
});

describe('upload response shape', () => {
  it('upload.response.schema: a missing or non-string member', () => {
    expect(failing(uploadPost('application/pdf', PDF_BYTES, '{"fileName":"content"}'))).toEqual([
      'upload.response.schema@response',
    ]);
    expect(failing(uploadPost('application/pdf', PDF_BYTES, '{"fileName":"content","fileType":1}'))).toEqual([
      'upload.response.schema@response',
    ]);
    expect(
      failing(
        uploadPost(
          'application/pdf',
          PDF_BYTES,
          uploadResultXml().replace(/<FileName>.*<\/FileName>/, ''),
          200,
          XML_TYPE,
        ),
      ),
    ).toEqual(['upload.response.schema@response']);
  });

  it('upload.json.casing and upload.xml.casing', () => {
    expect(failing(uploadPost('application/pdf', PDF_BYTES, '{"FileName":"content","fileType":"PDF"}'))).toEqual([
      'upload.json.casing@response',
      'upload.response.schema@response',
    ]);
    expect(
      failing(
        uploadPost('application/pdf', PDF_BYTES, uploadResultXml().replaceAll('FileType>', 'fileType>'), 200, XML_TYPE),
      ),
    ).toEqual(['upload.xml.casing@response']);
  });

  it('upload.xml.root', () => {
    expect(
      failing(
        uploadPost('application/pdf', PDF_BYTES, uploadResultXml().replaceAll('UploadResult', 'Upload'), 200, XML_TYPE),
      ),
    ).toEqual(['upload.xml.root@response']);
  });
});
