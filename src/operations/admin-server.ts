import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Registry, type RegistryContentType } from 'prom-client';
import { listen } from '../http/listen.js';
import type { OperationsMetrics } from './metrics.js';

// The admin port (--admin-port): what a supervisor, a load balancer and Prometheus ask a proxy or
// `serve` that runs for days. It answers GET /livez, /readyz and /metrics and nothing else: no
// traffic, control call, body, header value, URL or test name is served here. Its own port, so that
// probes and scrapes never count as traffic, and it can stay on a private address.

export type Readiness = 'starting' | 'ready' | 'stopping';

export interface AdminServer {
  /** http://host:port/ */
  url: string;
  /** 200 on /readyz from now (`ready`), 503 from the moment a stop begins (`stopping`). */
  setReadiness(readiness: Readiness): void;
  close(): Promise<void>;
}

const TEXT = 'text/plain; charset=utf-8';

/** Whether the scraper asks for OpenMetrics (Prometheus does, first, in its Accept). */
function wantsOpenMetrics(accept: string | undefined): boolean {
  return accept !== undefined && /application\/openmetrics-text/i.test(accept);
}

/**
 * Scrapes one at a time: prom-client's registry writes OpenMetrics by switching its content type,
 * and renames counters (dropping `_total`) while it does; the names are put back after each.
 */
class Scrapes {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly registry: Registry<RegistryContentType>;
  constructor(registry: Registry) {
    this.registry = registry as unknown as Registry<RegistryContentType>;
  }

  take(openMetrics: boolean): Promise<{ body: string; type: string }> {
    const next = this.queue.then(() => this.scrape(openMetrics));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async scrape(openMetrics: boolean): Promise<{ body: string; type: string }> {
    if (!openMetrics) return { body: await this.registry.metrics(), type: this.registry.contentType };
    const metrics = this.registry.getMetricsAsArray() as unknown as { name: string }[];
    const names = metrics.map((metric) => metric.name);
    this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    try {
      return { body: await this.registry.metrics(), type: this.registry.contentType };
    } finally {
      this.registry.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);
      metrics.forEach((metric, index) => {
        metric.name = names[index] as string;
      });
    }
  }
}

function plain(response: ServerResponse, status: number, body: string, extra: Record<string, string> = {}): void {
  response.writeHead(status, {
    'content-type': TEXT,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...extra,
  });
  response.end(body);
}

export async function startAdminServer(options: {
  host: string;
  port: number;
  metrics: OperationsMetrics;
}): Promise<AdminServer> {
  let readiness: Readiness = 'starting';
  const scrapes = new Scrapes(options.metrics.registry);
  const answer = (request: IncomingMessage, response: ServerResponse): void => {
    // Nothing a request sends is read or echoed: only its method and path choose the answer.
    request.resume();
    const path = (request.url ?? '').split('?')[0];
    const method = request.method ?? '';
    if (path !== '/livez' && path !== '/readyz' && path !== '/metrics') {
      plain(response, 404, 'not found\n');
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      plain(response, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
      return;
    }
    if (path === '/livez') plain(response, 200, 'ok\n');
    else if (path === '/readyz')
      readiness === 'ready'
        ? plain(response, 200, 'ready\n')
        : plain(response, 503, readiness === 'stopping' ? 'stopping\n' : 'starting\n');
    else
      scrapes.take(wantsOpenMetrics(request.headers.accept)).then(
        ({ body, type }) => plain(response, 200, body, { 'content-type': type }),
        () => plain(response, 500, 'metrics could not be collected\n'),
      );
  };
  const server = createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, answer);
  // A probe's connection never keeps a stopping process alive.
  server.keepAliveTimeout = 5_000;
  server.on('clientError', (_error, socket) => socket.destroy());
  const origin = await listen(server, options.port, options.host);
  // It never keeps the process alive by itself: a session that ends by an error still exits.
  server.unref();
  return {
    url: `${origin}/`,
    setReadiness: (next) => {
      readiness = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
