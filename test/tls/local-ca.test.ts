import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientEnvironment } from '../../src/cli/client-environment.js';
import { javaTrustStore } from '../../src/tls/java-trust-store.js';
import { loadOrCreateCa } from '../../src/tls/local-ca.js';
import { certificatesIn, trustBundle } from '../../src/tls/trust.js';
import { onPath } from '../helpers/peers.js';

// The local CA: made once, its key the owner's alone, host certificates that verify against it,
// and the files a wrapped command is given to trust it.

let folder: string;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-ca-'));
});

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe('the local CA', () => {
  it('is made once, also when two processes ask at the same moment, its key owner-only', async () => {
    const dir = join(folder, 'race');
    const [a, b] = await Promise.all([loadOrCreateCa(dir), loadOrCreateCa(dir)]);
    expect(a.certPem).toBe(b.certPem);
    expect([a.created, b.created].filter(Boolean).length).toBeLessThanOrEqual(1);
    expect(statSync(join(dir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o077).toBe(0);
    expect(readFileSync(a.certPath, 'utf8')).toBe(a.certPem);
    expect(readFileSync(a.certPath, 'utf8')).not.toMatch(/PRIVATE KEY/);
    expect((await loadOrCreateCa(dir)).certPem).toBe(a.certPem);
  });

  it('issues host certificates that verify against it, for names and addresses', async () => {
    const ca = await loadOrCreateCa(join(folder, 'issue'));
    const issued = await ca.maker.issue(['test.printapi.nl', '127.0.0.1']);
    const [leafPem] = certificatesIn(issued.certPem);
    const leaf = new X509Certificate(leafPem as string);
    const authority = new X509Certificate(ca.certPem);
    expect(leaf.verify(authority.publicKey)).toBe(true);
    expect(leaf.checkIssued(authority)).toBe(true);
    expect(leaf.checkHost('test.printapi.nl')).toBe('test.printapi.nl');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkHost('other.test')).toBeUndefined();
    expect(authority.ca).toBe(true);
    expect(leaf.ca).toBe(false);
  });

  it('refuses a key reached through a link', async () => {
    const real = join(folder, 'real');
    await loadOrCreateCa(real);
    const planted = join(folder, 'planted');
    (await import('node:fs')).mkdirSync(planted, { mode: 0o700 });
    symlinkSync(join(real, 'ca-key.pem'), join(planted, 'ca-key.pem'));
    await expect(loadOrCreateCa(planted)).rejects.toThrow(/is a symbolic link/);
  });

  it('refuses a key file that holds no key', async () => {
    const dir = join(folder, 'empty-key');
    (await import('node:fs')).mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'ca-key.pem'), 'nothing', { mode: 0o600 });
    await expect(loadOrCreateCa(dir)).rejects.toThrow(/holds no key and certificate/);
  });
});

describe('a Java trust store', () => {
  it("is a JKS whose digest Java's password check accepts", () => {
    const certificates = certificatesIn(trustBundle([]));
    const store = javaTrustStore(certificates, 'changeit');
    expect(store.readUInt32BE(0)).toBe(0xfeedfeed);
    expect(store.readUInt32BE(4)).toBe(2);
    expect(store.readUInt32BE(8)).toBe(certificates.length);
    const body = store.subarray(0, store.length - 20);
    const digest = createHash('sha1')
      .update(Buffer.from('changeit', 'utf16le').swap16())
      .update('Mighty Aphrodite')
      .update(body)
      .digest();
    expect(store.subarray(store.length - 20).equals(digest)).toBe(true);
  });

  it.skipIf(!existsSync('/usr/bin/keytool'))('is read by keytool', async () => {
    const ca = await loadOrCreateCa(join(folder, 'java'));
    const file = join(folder, 'trust.jks');
    writeFileSync(file, javaTrustStore(certificatesIn(trustBundle([ca.certPem])), 'changeit'));
    const listed = execFileSync(
      'keytool',
      ['-list', '-keystore', file, '-storepass', 'changeit', '-storetype', 'JKS'],
      {
        encoding: 'utf8',
      },
    );
    expect(listed).toMatch(/trustedCertEntry/);
  });
});

describe('the environment of a wrapped command', () => {
  it.skipIf(!onPath('php'))(
    "gives PHP's default stream context the proxy, after any prepend file already set",
    async () => {
      const ca = await loadOrCreateCa(join(folder, 'env-php'));
      const own = join(folder, 'own-php');
      mkdirSync(own, { recursive: true });
      writeFileSync(join(own, 'first.php'), '<?php echo "first ran\\n";\n');
      writeFileSync(join(own, 'own.ini'), `auto_prepend_file = "${join(own, 'first.php')}"\n`);
      const inherited = { ...process.env, PHP_INI_SCAN_DIR: own };
      const env = clientEnvironment('http://127.0.0.1:8080/', ca.certPath, ca.certPem, inherited);
      try {
        // Prepend files run before scripts (not before php -r).
        const script = join(own, 'script.php');
        writeFileSync(
          script,
          '<?php echo json_encode(stream_context_get_options(stream_context_get_default())), "\\n";\n',
        );
        const out = execFileSync('php', [script], { env: { ...inherited, ...env.variables }, encoding: 'utf8' });
        const [first, options] = out.trim().split('\n');
        expect(first).toBe('first ran');
        expect(JSON.parse(options as string)).toEqual({
          http: { proxy: 'tcp://127.0.0.1:8080', request_fulluri: true },
          ssl: { cafile: env.variables.SSL_CERT_FILE },
        });
      } finally {
        env.remove();
      }
    },
  );

  it('passes Java no trust store password a log could show', async () => {
    const ca = await loadOrCreateCa(join(folder, 'env-java'));
    const env = clientEnvironment('http://127.0.0.1:8080/', ca.certPath, ca.certPem, {});
    env.remove();
    expect(env.variables.JAVA_TOOL_OPTIONS).toMatch(/-Djavax\.net\.ssl\.trustStore=/);
    expect(env.variables.JAVA_TOOL_OPTIONS).not.toMatch(/[Pp]assword/);
  });

  it('adds to the PHP scan folders and Java options already in effect, and trusts the system CAs too', async () => {
    const ca = await loadOrCreateCa(join(folder, 'env'));
    const env = clientEnvironment('http://127.0.0.1:8080/', ca.certPath, ca.certPem, {
      PHP_INI_SCAN_DIR: '/etc/php/conf.d',
      JAVA_TOOL_OPTIONS: '-Xmx1g',
    });
    try {
      const { variables } = env;
      expect(variables.HTTPS_PROXY).toBe('http://127.0.0.1:8080');
      expect(variables.NODE_EXTRA_CA_CERTS).toBe(ca.certPath);
      expect(variables.PHP_INI_SCAN_DIR).toMatch(/^\/etc\/php\/conf\.d:\//);
      expect(variables.JAVA_TOOL_OPTIONS).toMatch(/^-Xmx1g -Dhttp\.proxyHost=127\.0\.0\.1 /);
      const bundle = readFileSync(variables.SSL_CERT_FILE as string, 'utf8');
      expect(certificatesIn(bundle).length).toBeGreaterThan(10);
      expect(bundle).toContain(ca.certPem.trim());
      const iniFolder = (variables.PHP_INI_SCAN_DIR as string).split(':').at(-1) as string;
      expect(readFileSync(join(iniFolder, 'zz-print-conformance.ini'), 'utf8')).toContain(
        `curl.cainfo = "${variables.SSL_CERT_FILE}"`,
      );
      const fresh = clientEnvironment('http://127.0.0.1:8080/', ca.certPath, ca.certPem, {});
      // An empty entry first: PHP keeps the folder it was built with.
      expect(fresh.variables.PHP_INI_SCAN_DIR).toMatch(/^:\//);
      fresh.remove();
    } finally {
      env.remove();
    }
    expect(existsSync(env.variables.SSL_CERT_FILE as string)).toBe(false);
  });
});
