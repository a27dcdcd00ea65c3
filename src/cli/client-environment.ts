import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { javaTrustStore } from '../tls/java-trust-store.js';
import { certificatesIn, trustBundle } from '../tls/trust.js';

// What makes a client's own HTTP stack send through the proxy and trust its local CA, with no
// change to the client's code: the proxy variables every stack reads, and for each runtime the
// one way it takes more CAs. Set for the wrapped command alone. Runtimes that take a single CA file
// get the system's CAs and the local CA together, so every other host still verifies as before.

export interface ClientEnvironment {
  /** The variables to add to the command's environment. */
  variables: Record<string, string>;
  /** Their names, for the summary ("the proxy set …"). */
  names: string[];
  /** Removes the files made for the command. */
  remove(): void;
}

/** Hosts that never go through the proxy: this machine (a local test service, the proxy itself). */
const NO_PROXY = 'localhost,127.0.0.1,::1,[::1]';

/**
 * The prepend file PHP runs before every script: its default stream context (file_get_contents,
 * fopen on https:// URLs without a context of their own) goes through the proxy and trusts the
 * bundle, as curl does with the variables; a prepend file already configured still runs after it.
 */
function phpPrepend(proxy: URL, bundlePath: string, chained: string | undefined): string {
  const options = {
    http: { proxy: `tcp://${proxy.hostname}:${proxy.port || '80'}`, request_fulluri: true },
    ssl: { cafile: bundlePath },
  };
  let text = `<?php\n// Written by print-conformance for a command behind its proxy.\nstream_context_set_default(json_decode(${phpString(JSON.stringify(options))}, true));\n`;
  if (chained) text += `require_once ${phpString(chained)};\n`;
  return text;
}

/** A PHP single-quoted string literal. */
function phpString(value: string): string {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** The auto_prepend_file PHP is configured with, without the proxy's ini (none, or no PHP: undefined). */
function configuredPhpPrepend(inherited: NodeJS.ProcessEnv): string | undefined {
  try {
    const value = execFileSync('php', ['-r', 'echo ini_get("auto_prepend_file");'], {
      env: inherited,
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return value.trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The environment for a command behind the proxy at `proxyUrl` ("http://127.0.0.1:8080/"), trusting
 * the CA certificate at `caCertPath` (PEM `caCertPem`).
 */
export function clientEnvironment(
  proxyUrl: string,
  caCertPath: string,
  caCertPem: string,
  inherited: NodeJS.ProcessEnv = process.env,
): ClientEnvironment {
  const folder = mkdtempSync(join(tmpdir(), 'print-conformance-client-'));
  const bundlePath = join(folder, 'ca-bundle.pem');
  writeFileSync(bundlePath, trustBundle(certificatesIn(caCertPem)), { mode: 0o644 });
  // PHP reads every .ini in the scan folders; an empty entry keeps the folders it was built with.
  const phpFolder = join(folder, 'php');
  mkdirSync(phpFolder);
  const proxy = new URL(proxyUrl);
  const prependPath = join(phpFolder, 'prepend.php');
  writeFileSync(prependPath, phpPrepend(proxy, bundlePath, configuredPhpPrepend(inherited)));
  writeFileSync(
    join(phpFolder, 'zz-print-conformance.ini'),
    `; Written by print-conformance for a command behind its proxy.\ncurl.cainfo = "${bundlePath}"\nopenssl.cafile = "${bundlePath}"\nauto_prepend_file = "${prependPath}"\n`,
  );
  const scanned = inherited.PHP_INI_SCAN_DIR;
  const phpScan = scanned ? `${scanned}${delimiter}${phpFolder}` : `${delimiter}${phpFolder}`;
  const storePath = join(folder, 'truststore.jks');
  // A trust store holds public certificates only; Java reads one without its password (the
  // password guards only the file's integrity, in a folder only this user can write). So none is
  // passed: JVMs print JAVA_TOOL_OPTIONS ("Picked up …") into every log, and a password there,
  // even a harmless one, is what log scanners flag. The one it is written with is thrown away.
  writeFileSync(
    storePath,
    javaTrustStore(certificatesIn(readFileSync(bundlePath, 'utf8')), randomBytes(18).toString('base64url')),
  );
  const proxyHost = proxy.hostname;
  const proxyPort = proxy.port || '80';
  const javaOptions = [
    `-Dhttp.proxyHost=${proxyHost}`,
    `-Dhttp.proxyPort=${proxyPort}`,
    `-Dhttps.proxyHost=${proxyHost}`,
    `-Dhttps.proxyPort=${proxyPort}`,
    '-Dhttp.nonProxyHosts=localhost|127.*|[::1]',
    `-Djavax.net.ssl.trustStore=${storePath}`,
    '-Djavax.net.ssl.trustStoreType=JKS',
  ];
  const existingJava = inherited.JAVA_TOOL_OPTIONS;
  const base = proxyUrl.replace(/\/$/, '');
  const variables: Record<string, string> = {
    HTTP_PROXY: base,
    HTTPS_PROXY: base,
    http_proxy: base,
    https_proxy: base,
    NO_PROXY,
    no_proxy: NO_PROXY,
    // Node.js 22.21+ and 24+ take the variables above for fetch and node:http only when told to.
    NODE_USE_ENV_PROXY: '1',
    // Node adds these to its own CAs: the local CA alone is enough.
    NODE_EXTRA_CA_CERTS: caCertPath,
    SSL_CERT_FILE: bundlePath,
    CURL_CA_BUNDLE: bundlePath,
    REQUESTS_CA_BUNDLE: bundlePath,
    PHP_INI_SCAN_DIR: phpScan,
    JAVA_TOOL_OPTIONS: [existingJava, ...javaOptions].filter(Boolean).join(' '),
  };
  return {
    variables,
    names: Object.keys(variables),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
