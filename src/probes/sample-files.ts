import { crc32, deflateSync } from 'node:zlib';

// Small but valid print files for upload probes: a one-page A5 PDF, a 1×1 PNG, a 1×1 JPEG.

function pdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 419.53 595.28] /Contents 4 0 R >>',
    '<< /Length 0 >>\nstream\n\nendstream',
  ];
  let out = '%PDF-1.7\n%\xE2\xE3\xCF\xD3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 255, 255, 255]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// A 1×1 white baseline JPEG.
const JPEG_BASE64 =
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=';

const JFIF = Buffer.from(JPEG_BASE64, 'base64');

/**
 * The same picture as a camera or phone writes it: an Exif APP1 segment (an empty TIFF directory)
 * where the JFIF one's APP0 was. Its fourth byte is E1, not E0: a table that knows a JPEG by
 * FF D8 FF E0 does not know it.
 */
function exifJpeg(): Buffer {
  const tiff = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(payload.length + 2);
  const app0End = 4 + JFIF.readUInt16BE(4);
  return Buffer.concat([JFIF.subarray(0, 2), Buffer.from([0xff, 0xe1]), length, payload, JFIF.subarray(app0End)]);
}

/** A JPEG written by a camera (Exif), beside the sample's JFIF: both are JPEG by their first bytes. */
export const EXIF_JPEG = exifJpeg();

/**
 * The picture as Photoshop's "Save for Web" or a DAM writes it: an APP13 segment (IPTC in a
 * Photoshop resource block) first, no JFIF APP0. Its fourth byte is ED.
 */
function app13Jpeg(): Buffer {
  const payload = Buffer.concat([
    Buffer.from('Photoshop 3.0\0', 'latin1'),
    Buffer.from('8BIM', 'latin1'),
    Buffer.from([0x04, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
  ]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(payload.length + 2);
  // The JFIF sample after its SOI (2 bytes) and APP0 segment (18 bytes).
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xed]), length, payload, JFIF.subarray(20)]);
}

export const APP13_JPEG = app13Jpeg();

export type SampleType = 'pdf' | 'png' | 'jpeg';

export const SAMPLE_MEDIA_TYPES: Record<SampleType, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
};

export const SAMPLE_FILES: Record<SampleType, Buffer> = {
  pdf: pdf(),
  png: png(),
  jpeg: JFIF,
};

/** How a form is written besides its file: the spellings clients and frameworks use. */
export interface FormSpelling {
  /** Text fields written after the file part (a form's inputs after its file input). */
  fieldsAfter?: Record<string, string>;
  /** The file part's field name (default "file"). */
  fileField?: string;
  /** The boundary quoted in Content-Type, as .NET's MultipartFormDataContent writes it. */
  quotedBoundary?: boolean;
  /** The file part written without a Content-Type of its own. */
  untypedPart?: boolean;
}

/**
 * A multipart/form-data body with the file as its part "file". `fieldsFirst` are text fields
 * written before the file part, as browsers and HTTP clients write a form's other inputs.
 */
export function multipartOf(
  file: Buffer,
  mediaType: string,
  filename: string,
  fieldsFirst: Record<string, string> = {},
  spelling: FormSpelling = {},
): { body: Buffer; contentType: string } {
  const boundary = `----print-conformance-${Math.random().toString(36).slice(2)}`;
  const field = ([name, value]: [string, string]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const fields = Object.entries(fieldsFirst).map(field);
  const after = Object.entries(spelling.fieldsAfter ?? {}).map(field);
  const head = `${fields.join('')}--${boundary}\r\nContent-Disposition: form-data; name="${spelling.fileField ?? 'file'}"; filename="${filename}"\r\n${spelling.untypedPart ? '' : `Content-Type: ${mediaType}\r\n`}\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n${after.join('')}--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${spelling.quotedBoundary ? `"${boundary}"` : boundary}`,
  };
}

/** The sample PDF as a PDF 2.0 writer heads it (`%PDF-2.0`): a table that knows `%PDF-1.` does not know it. */
export const PDF_2 = Buffer.from(pdf().toString('latin1').replace('%PDF-1.7', '%PDF-2.0'), 'latin1');

/** A PDF of `size` bytes: the sample's first bytes, then white space (only the magic bytes are read). */
export function paddedPdf(size: number): Buffer {
  const head = SAMPLE_FILES.pdf;
  return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 0x20)]);
}
