// Upload types told by their magic numbers, as the real service determines FileType.

export type FileKind = 'PDF' | 'PNG' | 'JPEG';

export const UPLOAD_MEDIA_TYPES: Record<string, FileKind> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
};

/** FileType values that name each kind (compared case-insensitively). */
export const FILE_TYPE_NAMES: Record<FileKind, string[]> = {
  PDF: ['PDF'],
  PNG: ['PNG'],
  JPEG: ['JPEG', 'JPG'],
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Bytes needed to tell every kind apart. */
export const MAGIC_LENGTH = 8;

export function fileKindOf(bytes: Uint8Array | undefined): FileKind | undefined {
  if (!bytes) return undefined;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.subarray(0, 5).toString('latin1') === '%PDF-') return 'PDF';
  if (buffer.length >= 8 && buffer.subarray(0, 8).equals(PNG_SIGNATURE)) return 'PNG';
  if (buffer.length >= 3 && buffer[0] === 0xff && buffer[1] === 0xd8 && buffer[2] === 0xff) return 'JPEG';
  return undefined;
}

/** A short printable picture of the first bytes, for messages. */
export function describeStart(bytes: Uint8Array | undefined): string {
  if (!bytes || bytes.length === 0) return 'an empty body';
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 8));
  return `bytes starting ${head.toString('hex').replace(/(..)/g, '$1 ').trim()}`;
}
