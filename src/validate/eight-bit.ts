// The two 8-bit encodings services write, decoded by exact tables rather than by `TextDecoder`,
// whose tables differ by Node.js line (Node 20 reads windows-1252 as Latin-1; Node 22 and later
// read ISO-8859-1 as windows-1252, as WHATWG's label mapping does). libxml2, .NET and Java read
// ISO-8859-1 bytes 0x80–0x9F as the C1 controls, and windows-1252 bytes there as its own table.

/** windows-1252 bytes 0x80–0x9F; its five undefined bytes are read as the C1 control of their value, as .NET and WHATWG read them. */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

const WINDOWS_1252_BYTE = new Map<number, number>(WINDOWS_1252_HIGH.map((code, index) => [code, 0x80 + index]));

export type EightBitTable = 'iso-8859-1' | 'windows-1252';

const LATIN1_LABELS = new Set([
  'iso-8859-1',
  'iso8859-1',
  'iso_8859-1',
  'iso_8859-1:1987',
  'iso88591',
  'latin1',
  'l1',
  'cp819',
  'ibm819',
  'iso-ir-100',
  'csisolatin1',
  'us-ascii',
  'ascii',
  'ansi_x3.4-1968',
]);
const WINDOWS_1252_LABELS = new Set(['windows-1252', 'cp1252', 'x-cp1252', 'cp-1252']);

/** The exact table a label names, or undefined for a label of another encoding. */
export function eightBitTableOf(label: string | undefined): EightBitTable | undefined {
  if (!label) return undefined;
  const key = label.trim().toLowerCase();
  if (LATIN1_LABELS.has(key)) return 'iso-8859-1';
  if (WINDOWS_1252_LABELS.has(key)) return 'windows-1252';
  return undefined;
}

/** Bytes as the table reads them: one character a byte, the same on every Node.js line. */
export function decodeEightBit(bytes: Uint8Array, table: EightBitTable): string {
  if (table === 'iso-8859-1') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let text = '';
  const CHUNK = 8192;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const codes = Array.from(bytes.subarray(start, start + CHUNK), (byte) =>
      byte >= 0x80 && byte <= 0x9f ? (WINDOWS_1252_HIGH[byte - 0x80] as number) : byte,
    );
    text += String.fromCharCode(...codes);
  }
  return text;
}

/** Text written back as windows-1252, or undefined when a character has no byte there. */
export function encodeWindows1252(text: string): Buffer | undefined {
  const bytes = Buffer.alloc(text.length);
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const byte = code >= 0x80 && code <= 0x9f ? undefined : code <= 0xff ? code : WINDOWS_1252_BYTE.get(code);
    // The C1 controls of its undefined bytes read back to those bytes.
    const undefinedByte = code === 0x81 || code === 0x8d || code === 0x8f || code === 0x90 || code === 0x9d;
    if (byte === undefined && !undefinedByte) return undefined;
    bytes[index] = byte ?? code;
  }
  return bytes;
}
