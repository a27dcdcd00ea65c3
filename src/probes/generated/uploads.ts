import fc from 'fast-check';
import { SAMPLE_FILES } from '../sample-files.js';

// Uploads a real client makes: the PDF raw or in a multipart form, the form's file field under
// other names, text fields before and after the file, file names outside ASCII, and sizes from
// the smallest PDF to the configured maximum.

export interface GeneratedUpload {
  multipart: boolean;
  fieldName: string;
  fieldsBefore: number;
  fieldsAfter: number;
  filename: string;
  size: number;
}

const FIELD_NAMES = ['file', 'upload', 'content', 'document'];
const FILENAMES = ['book.pdf', 'boek-ü.pdf', 'Bücher & Hefte.pdf', '書籍.pdf', 'book 😀.pdf', 'a"b.pdf'];

export function generatedUpload(maxBytes: number): fc.Arbitrary<GeneratedUpload> {
  const smallest = SAMPLE_FILES.pdf.length;
  return fc.record({
    multipart: fc.boolean(),
    fieldName: fc.constantFrom(...FIELD_NAMES),
    fieldsBefore: fc.integer({ min: 0, max: 2 }),
    fieldsAfter: fc.integer({ min: 0, max: 2 }),
    filename: fc.constantFrom(...FILENAMES),
    size: fc.oneof(fc.constant(smallest), fc.integer({ min: smallest, max: Math.max(smallest, maxBytes) })),
  });
}

/** The sample PDF grown to `size` bytes with a comment before its end: still one valid PDF. */
export function pdfOfSize(size: number): Buffer {
  const pdf = SAMPLE_FILES.pdf;
  if (size <= pdf.length) return pdf;
  const end = pdf.lastIndexOf('%%EOF');
  const at = end < 0 ? pdf.length : end;
  const padding = Buffer.alloc(size - pdf.length, 0x20);
  padding[0] = 0x25; // "%": a comment line
  padding[padding.length - 1] = 0x0a;
  return Buffer.concat([pdf.subarray(0, at), padding, pdf.subarray(at)]);
}

/** A filename as a form writes it: quoted, its quotes escaped, UTF-8 as browsers send it. */
const quoted = (name: string) => `"${name.replace(/\\/g, '\\\\').replace(/"/g, '%22')}"`;

/** The request body and Content-Type of a generated upload; the boundary is fixed so a seed repeats a run. */
export function uploadBody(upload: GeneratedUpload): { body: Buffer; contentType: string } {
  const file = pdfOfSize(upload.size);
  if (!upload.multipart) return { body: file, contentType: 'application/pdf' };
  const boundary = '----print-conformance-generated-7MA4YWxkTrZu0gW';
  const field = (name: string, value: string) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  const parts: Buffer[] = [];
  for (let index = 0; index < upload.fieldsBefore; index += 1) parts.push(field(`note${index}`, `before ${index} – ü`));
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${upload.fieldName}"; filename=${quoted(upload.filename)}\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    file,
    Buffer.from('\r\n'),
  );
  for (let index = 0; index < upload.fieldsAfter; index += 1) parts.push(field(`extra${index}`, `after ${index}`));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Types the service must refuse an upload under (seed §4.3 allows PDF, PNG and JPEG only). */
const REFUSED_TYPES = ['text/plain', 'application/octet-stream', 'application/x-pdf', 'image/gif', 'application/json'];

export interface RefusedUpload {
  multipart: boolean;
  type: string;
  bytes: Uint8Array;
}

/** An upload of one byte or more, declared (raw, or as the file part's type) as a type to refuse. */
export const refusedUpload: fc.Arbitrary<RefusedUpload> = fc.record({
  multipart: fc.boolean(),
  type: fc.constantFrom(...REFUSED_TYPES),
  bytes: fc.uint8Array({ minLength: 1, maxLength: 4096 }),
});

export function refusedUploadBody(upload: RefusedUpload): { body: Buffer; contentType: string } {
  const file = Buffer.from(upload.bytes);
  if (!upload.multipart) return { body: file, contentType: upload.type };
  const boundary = '----print-conformance-generated-7MA4YWxkTrZu0gW';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="file.bin"\r\nContent-Type: ${upload.type}\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
