// The floor of intercepting HTTPS in Node.js: a CONNECT proxy that ends the client's TLS with a
// certificate of the local CA and relays the clear bytes over TLS to the service, reading,
// judging and recording nothing. What print-conformance's interception costs beyond it is its own.
import { createServer } from 'node:http';
import tls from 'node:tls';

const [target, caDir] = process.argv.slice(2);
const { loadOrCreateCa } = await import('../dist/src/tls/local-ca.js');
const ca = await loadOrCreateCa(caDir);
const service = new URL(target);
const leaf = await ca.maker.issue([service.hostname]);
const context = tls.createSecureContext({ cert: leaf.certPem, key: leaf.keyPem });

const server = createServer((_request, response) => {
  response.writeHead(405);
  response.end();
});
server.on('connect', (_request, socket, head) => {
  if (head.length > 0) socket.unshift(head);
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  const client = new tls.TLSSocket(socket, { isServer: true, secureContext: context });
  const upstream = tls.connect({ host: service.hostname, port: Number(service.port), ca: ca.certPem });
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', end).on('close', end);
  upstream.on('error', end).on('close', end);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
