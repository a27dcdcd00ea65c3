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
/** The password of the Java trust store: it holds public certificates only. */
const JAVA_STORE_PASSWORD = 'changeit';

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
  writeFileSync(
    join(phpFolder, 'zz-print-conformance.ini'),
    `; Written by print-conformance for a command behind its proxy.\ncurl.cainfo = "${bundlePath}"\nopenssl.cafile = "${bundlePath}"\n`,
  );
  const scanned = inherited.PHP_INI_SCAN_DIR;
  const phpScan = scanned ? `${scanned}${delimiter}${phpFolder}` : `${delimiter}${phpFolder}`;
  const storePath = join(folder, 'truststore.jks');
  writeFileSync(storePath, javaTrustStore(certificatesIn(readFileSync(bundlePath, 'utf8')), JAVA_STORE_PASSWORD));
  const proxy = new URL(proxyUrl);
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
    `-Djavax.net.ssl.trustStorePassword=${JAVA_STORE_PASSWORD}`,
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
