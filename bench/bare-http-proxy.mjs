// The floor of forwarding with http-proxy: a passthrough that neither reads nor records anything.
import { createServer } from 'node:http';
import httpProxy from 'http-proxy';

const target = process.argv[2];
const proxy = httpProxy.createProxyServer({
  target,
  changeOrigin: true,
  agent: new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 256 }),
});
proxy.on('error', (_error, _request, response) => {
  response.writeHead?.(502);
  response.end?.();
});
const server = createServer((request, response) => proxy.web(request, response)).listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
