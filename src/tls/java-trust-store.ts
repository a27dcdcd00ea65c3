import { createHash } from 'node:crypto';

// A Java KeyStore (JKS) of trusted certificates, the one file type every Java since 1.2 reads as a
// trust store (javax.net.ssl.trustStore). Java takes no PEM bundle, and a PKCS#12 store of
// certificates alone needs a Java-specific attribute on each; JKS needs none, and its layout is
// short: a header, one entry per certificate, then a SHA-1 digest keyed by the store's password.

const MAGIC = 0xfeedfeed;
const VERSION = 2;
const TRUSTED_CERTIFICATE = 2;
/** What Java's JavaKeyStore mixes into the digest, after the password. */
const WHITENER = 'Mighty Aphrodite';

/** Java's "modified UTF-8" with its two-byte length; the aliases and type names here are ASCII. */
function javaString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

function derOf(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

/** A JKS holding each PEM certificate as a trusted entry, its integrity keyed by `password`. */
export function javaTrustStore(certificatesPem: readonly string[], password: string): Buffer {
  const parts: Buffer[] = [uint32(MAGIC), uint32(VERSION), uint32(certificatesPem.length)];
  const now = Buffer.alloc(8);
  now.writeBigUInt64BE(BigInt(Date.now()));
  certificatesPem.forEach((pem, index) => {
    const der = derOf(pem);
    parts.push(
      uint32(TRUSTED_CERTIFICATE),
      javaString(`ca-${index + 1}`),
      now,
      javaString('X.509'),
      uint32(der.length),
      der,
    );
  });
  const body = Buffer.concat(parts);
  const digest = createHash('sha1')
    .update(Buffer.from(password, 'utf16le').swap16())
    .update(WHITENER, 'utf8')
    .update(body)
    .digest();
  return Buffer.concat([body, digest]);
}
