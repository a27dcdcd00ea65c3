import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import { type CertificateMaker, loadCertificateMaker } from './x509.js';

// The local certificate authority: a key and a self-signed certificate kept in one folder of the
// user's, made the first time anything needs it. Interception terminates TLS with certificates it
// issues, and `serve --tls` serves with one; clients are told to trust its certificate alone.

export const CA_DIR_VARIABLE = 'PRINT_CONFORMANCE_CA_DIR';
/** The key and the certificate together, readable by the owner alone: the CA's one secret. */
const KEY_FILE = 'ca-key.pem';
/** The certificate alone, for whoever must trust it. */
export const CERT_FILE = 'ca.pem';

export interface LocalCa {
  dir: string;
  certPath: string;
  certPem: string;
  /** Issues certificates for host names and addresses (made on demand, one key for them all). */
  maker: CertificateMaker;
  /** Made by this call, not found. */
  created: boolean;
}

/** The CA's folder: the one given, else $PRINT_CONFORMANCE_CA_DIR, else the user's configuration folder. */
export function caDirectory(given?: string): string {
  if (given) return given;
  const fromEnv = process.env[CA_DIR_VARIABLE];
  if (fromEnv) return fromEnv;
  const config = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(config, 'print-conformance', 'ca');
}

/**
 * The CA's certificate when the CA exists, without making one; undefined when it does not. Held to
 * what loadOrCreateCa holds it to (the folder, the key, ca.pem the key's certificate): a ca.pem
 * without its key, or beside another key, is no CA of ours and is never trusted.
 */
export function existingCaCertificate(dir: string): string | undefined {
  if (!checkFolder(dir)) return undefined;
  const pair = readKeyFile(join(dir, KEY_FILE));
  if (!pair) return undefined;
  checkCertificateFile(dir, pair.certPem);
  return pair.certPem;
}

/** Whoever can write in the CA's folder chooses what the proxy and a wrapped command trust. */
function ownersAlone(path: string, what: string, stat: { uid: number; mode: number }, fix: string): void {
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid())
    throw new UsageError(`${what} ${path} belongs to another user; use a CA folder of your own (--ca-dir)`);
  if ((stat.mode & 0o022) !== 0)
    throw new UsageError(`${what} ${path} can be written by others (mode ${(stat.mode & 0o777).toString(8)}); ${fix}`);
}

/** Whether the CA folder exists; refused when it is a link, or someone else's, or others can write in it. */
function checkFolder(dir: string): boolean {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new UsageError(`cannot read the CA folder ${dir}: ${fileProblem(error)}`);
  }
  if (stat.isSymbolicLink())
    throw new UsageError(`the CA folder ${dir} is a symbolic link; name the folder itself with --ca-dir`);
  if (!stat.isDirectory()) throw new UsageError(`the CA folder ${dir} is no folder; name another with --ca-dir`);
  ownersAlone(dir, 'the CA folder', stat, `run chmod 700 on it, or name another with --ca-dir`);
  return true;
}

/**
 * ca.pem, checked as the key is (never through a link, the owner's, written by no one else) and
 * against the key: a certificate that is not the key's is refused. Undefined when there is none.
 */
function checkCertificateFile(dir: string, keyCertificate: string): string | undefined {
  const path = join(dir, CERT_FILE);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new UsageError(`the CA certificate ${path} is a symbolic link; remove it`);
    throw new UsageError(`cannot read the CA certificate ${path}: ${fileProblem(error)}`);
  }
  let text: string;
  try {
    ownersAlone(path, 'the CA certificate', fstatSync(fd), 'remove it and it is written again');
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  if (!sameCertificate(text, keyCertificate))
    throw new UsageError(
      `the CA certificate ${path} is not the certificate of the CA key beside it; remove it and it is written again`,
    );
  return text;
}

function sameCertificate(a: string, b: string): boolean {
  try {
    return new X509Certificate(a).raw.equals(new X509Certificate(b).raw);
  } catch {
    return false;
  }
}

/** The CA in `dir`, made when there is none. A key others can read, or someone else's, is refused. */
export async function loadOrCreateCa(dir: string): Promise<LocalCa> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new UsageError(`cannot make the CA folder ${dir}: ${fileProblem(error)}; name another with --ca-dir`);
  }
  checkFolder(dir);
  const keyPath = join(dir, KEY_FILE);
  let created = false;
  let pair = readKeyFile(keyPath);
  if (!pair) {
    const made = await (await loadCertificateMaker()).newAuthority(`print-conformance local CA (${hostname()})`);
    // Linked into place only if no other process made one meanwhile: the first one made stays.
    created = placeOnce(dir, keyPath, `${made.keyPem}${made.certPem}`);
    pair = readKeyFile(keyPath);
    if (!pair) throw new UsageError(`cannot read the CA key ${keyPath} just made`);
  }
  const certPath = join(dir, CERT_FILE);
  if (checkCertificateFile(dir, pair.certPem) === undefined) replaceFile(certPath, pair.certPem, 0o644);
  const maker = await (await loadCertificateMaker()).forAuthority(pair.keyPem, pair.certPem);
  return { dir, certPath, certPem: pair.certPem, maker, created };
}

/** The key file's key and certificate, or undefined when there is none; refused when it is not the owner's alone. */
function readKeyFile(path: string): { keyPem: string; certPem: string } | undefined {
  let fd: number;
  try {
    // Never through a link: a planted link would make the proxy read (and trust) another key.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new UsageError(`the CA key ${path} is a symbolic link; remove it`);
    throw new UsageError(`cannot read the CA key ${path}: ${fileProblem(error)}`);
  }
  try {
    const stat = fstatSync(fd);
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid())
      throw new UsageError(`the CA key ${path} belongs to another user; use a CA folder of your own (--ca-dir)`);
    if ((stat.mode & 0o077) !== 0)
      throw new UsageError(
        `the CA key ${path} can be read by others (mode ${(stat.mode & 0o777).toString(8)}); run chmod 600 on it, or remove the folder to make a new CA`,
      );
    const text = readFileSync(fd, 'utf8');
    const key = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n?/.exec(text)?.[0];
    const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(text)?.[0];
    if (!key || !cert)
      throw new UsageError(`the CA key ${path} holds no key and certificate; remove it to make a new CA`);
    if (!certificateOfKey(cert, key))
      throw new UsageError(`the CA key ${path} holds a certificate of another key; remove it to make a new CA`);
    return { keyPem: key.endsWith('\n') ? key : `${key}\n`, certPem: cert.endsWith('\n') ? cert : `${cert}\n` };
  } finally {
    closeSync(fd);
  }
}

function certificateOfKey(certPem: string, keyPem: string): boolean {
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/** Writes `text` to a new owner-only file and links it to `path` unless one is there: whether it was placed. */
function placeOnce(dir: string, path: string, text: string): boolean {
  const temporary = join(dir, `.${KEY_FILE}.${randomBytes(8).toString('hex')}`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new UsageError(`cannot write the CA key ${path}: ${fileProblem(error)}`);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Writes a file whole under a name no one can guess, then renames it over its place (a link there is replaced, not followed). */
function replaceFile(path: string, text: string, mode: number): void {
  const temporary = `${path}.${randomBytes(8).toString('hex')}`;
  try {
    const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new UsageError(`cannot write the CA certificate ${path}: ${fileProblem(error)}`);
  }
}

/** Whether `path` exists as anything at all (a dangling link included). */
export function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
