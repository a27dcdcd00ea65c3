import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { existingCaCertificate, loadOrCreateCa } from '../../src/tls/local-ca.js';
import { runCli } from '../helpers/cli.js';

// The CA's folder and ca.pem are held to what its key is held to: whoever can write in the folder
// chooses what the proxy and a wrapped command trust. A folder or certificate that is a link, is
// someone else's, or others can write, is refused; and ca.pem must be the key's own certificate.

let folder: string;
let otherCa: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-ca-folder-'));
  otherCa = (await loadOrCreateCa(join(folder, 'other'))).certPem;
});

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** A CA made in a new folder of `name`, then spoilt by `spoil`. */
async function spoiltCa(name: string, spoil: (dir: string) => void): Promise<string> {
  const dir = join(folder, name);
  await loadOrCreateCa(dir);
  spoil(dir);
  return dir;
}

const SPOILT: [string, (dir: string) => void, RegExp][] = [
  [
    'a folder others can write in',
    (dir) => chmodSync(dir, 0o777),
    /the CA folder .* can be written by others \(mode 777\)/,
  ],
  [
    'a folder its group can write in',
    (dir) => chmodSync(dir, 0o770),
    /the CA folder .* can be written by others \(mode 770\)/,
  ],
  [
    'a ca.pem that is not the key certificate',
    (dir) => writeFileSync(join(dir, 'ca.pem'), otherCa),
    /the CA certificate .*ca\.pem is not the certificate of the CA key beside it/,
  ],
  [
    'a ca.pem that is no certificate at all',
    (dir) => writeFileSync(join(dir, 'ca.pem'), 'nothing'),
    /the CA certificate .*ca\.pem is not the certificate of the CA key/,
  ],
  [
    'a ca.pem others can write',
    (dir) => chmodSync(join(dir, 'ca.pem'), 0o666),
    /the CA certificate .*ca\.pem can be written by others \(mode 666\)/,
  ],
  [
    'a ca.pem that is a link',
    (dir) => {
      rmSync(join(dir, 'ca.pem'));
      writeFileSync(join(folder, 'elsewhere.pem'), otherCa);
      symlinkSync(join(folder, 'elsewhere.pem'), join(dir, 'ca.pem'));
    },
    /the CA certificate .*ca\.pem is a symbolic link/,
  ],
];

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (asRoot)
  SPOILT.push(
    ['a folder of another user', (dir) => chownSync(dir, 65534, 65534), /the CA folder .* belongs to another user/],
    [
      'a ca.pem of another user',
      (dir) => chownSync(join(dir, 'ca.pem'), 65534, 65534),
      /the CA certificate .* belongs to another user/,
    ],
  );

describe('a CA folder', () => {
  it.each(SPOILT)(
    'refuses %s, in making certificates, in trusting it upstream, and in the proxy',
    async (name, spoil, why) => {
      const dir = await spoiltCa(name.replace(/\W+/g, '-'), spoil);
      await expect(loadOrCreateCa(dir)).rejects.toThrow(why);
      expect(() => existingCaCertificate(dir)).toThrow(why);
      await expect(startProxy({ target: 'https://127.0.0.1:1/v2/', caDir: dir })).rejects.toThrow(why);
    },
  );

  it('that is a link is refused', async () => {
    const real = join(folder, 'real');
    await loadOrCreateCa(real);
    const linked = join(folder, 'linked');
    symlinkSync(real, linked);
    await expect(loadOrCreateCa(linked)).rejects.toThrow(/the CA folder .*linked is a symbolic link/);
    expect(() => existingCaCertificate(linked)).toThrow(/is a symbolic link/);
  });

  it('with a ca.pem and no key holds no CA: its certificate is not trusted', () => {
    const dir = join(folder, 'no-key');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'ca.pem'), otherCa);
    expect(existingCaCertificate(dir)).toBeUndefined();
  });

  it('as made, is used as before; a missing ca.pem is written again', async () => {
    const dir = join(folder, 'sound');
    const made = await loadOrCreateCa(dir);
    expect(existingCaCertificate(dir)).toBe(made.certPem);
    rmSync(join(dir, 'ca.pem'));
    expect(existingCaCertificate(dir)).toBe(made.certPem);
    expect((await loadOrCreateCa(dir)).certPem).toBe(made.certPem);
  });

  it('refused is one line and exit 2 on the command line', async () => {
    const dir = await spoiltCa('command-line', (spoilt) => writeFileSync(join(spoilt, 'ca.pem'), otherCa));
    const result = await runCli(['ca', '--ca-dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/is not the certificate of the CA key beside it; remove it and it is written again/);
  });
});
