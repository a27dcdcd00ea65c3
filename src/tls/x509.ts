import { isIP } from 'node:net';

// Certificates, made with @peculiar/x509 over the platform's WebCrypto: ECDSA P-256 keys, which
// take a millisecond to make and sign, where RSA keys take tens. Loaded only when a certificate
// is needed, so that commands that make none pay nothing for it.

export interface Authority {
  keyPem: string;
  certPem: string;
}

export interface HostCertificate {
  /** The host's certificate, then the CA's: the chain a client verifies. */
  certPem: string;
  keyPem: string;
}

export interface CertificateMaker {
  /** A certificate for these DNS names and IP addresses, signed by the authority. */
  issue(names: readonly string[]): Promise<HostCertificate>;
}

export interface CertificateFactory {
  newAuthority(commonName: string): Promise<Authority>;
  forAuthority(keyPem: string, certPem: string): Promise<CertificateMaker>;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
/** A CA lasts ten years (as mitmproxy's does); host certificates a year, within what browsers take (398 days). */
const AUTHORITY_DAYS = 3650;
const HOST_DAYS = 365;

function pemOf(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${base64.replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}

function derOf(pem: string): ArrayBuffer {
  const base64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const bytes = Buffer.from(base64, 'base64');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
}

/** A serial number of 16 random bytes, positive (its first bit clear), as RFC 5280 asks. */
function serialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}

let factory: Promise<CertificateFactory> | undefined;

export function loadCertificateMaker(): Promise<CertificateFactory> {
  factory ??= makeFactory();
  return factory;
}

async function makeFactory(): Promise<CertificateFactory> {
  // The library's dependency injection needs the Reflect metadata API in place before it loads.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const subtle = crypto.subtle;
  x509.cryptoProvider.set(crypto);

  const exportKey = async (key: CryptoKey) => pemOf('PRIVATE KEY', await subtle.exportKey('pkcs8', key));

  return {
    async newAuthority(commonName) {
      const keys = await subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
      const now = Date.now();
      const name = `CN=${commonName.replace(/[,+="\\<>;#]/g, ' ')}, O=print-conformance`;
      const cert = await x509.X509CertificateGenerator.createSelfSigned({
        serialNumber: serialNumber(),
        name,
        notBefore: new Date(now - DAY_MS),
        notAfter: new Date(now + AUTHORITY_DAYS * DAY_MS),
        keys,
        signingAlgorithm: ALGORITHM,
        extensions: [
          // A CA that issues host certificates only: no CA below it.
          new x509.BasicConstraintsExtension(true, 0, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
          await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        ],
      });
      return { keyPem: await exportKey(keys.privateKey), certPem: cert.toString('pem') };
    },

    async forAuthority(keyPem, certPem) {
      const authority = new x509.X509Certificate(certPem);
      const signingKey = await subtle.importKey('pkcs8', derOf(keyPem), ALGORITHM, false, ['sign']);
      // One key for every host certificate of this process, made once: certificates are made on
      // demand, and a key per host would cost a key per host.
      let hostKeys: Promise<{ keys: CryptoKeyPair; pem: string }> | undefined;
      const makeHostKeys = async () => {
        const keys = (await subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
        return { keys, pem: await exportKey(keys.privateKey) };
      };
      return {
        async issue(names) {
          hostKeys ??= makeHostKeys();
          const { keys, pem } = await hostKeys;
          const now = Date.now();
          const first = names[0] ?? 'localhost';
          const cert = await x509.X509CertificateGenerator.create({
            serialNumber: serialNumber(),
            subject: `CN=${first.replace(/[,+="\\<>;#]/g, ' ')}`,
            issuer: authority.subject,
            notBefore: new Date(now - DAY_MS),
            notAfter: new Date(now + HOST_DAYS * DAY_MS),
            signingKey,
            publicKey: keys.publicKey,
            signingAlgorithm: ALGORITHM,
            extensions: [
              new x509.BasicConstraintsExtension(false, undefined, true),
              new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
              new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
              new x509.SubjectAlternativeNameExtension(
                names.map((name) => ({ type: isIP(name) ? ('ip' as const) : ('dns' as const), value: name })),
              ),
              await x509.AuthorityKeyIdentifierExtension.create(authority),
            ],
          });
          return { certPem: `${cert.toString('pem')}\n${certPem}`, keyPem: pem };
        },
      };
    },
  };
}
