import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics, UpstreamStatus } from './metrics.ts';

export interface MetricsListener {
  /** `http://host:port/metrics` */
  url: string;
  close(): Promise<void>;
}

/** The API port's `/healthz` answer, byte for byte. */
const LIVE = '{"status":"ok"}';

/**
 * Serves `GET /metrics` on a port of its own, apart from the API: a proxy that publishes the
 * API port never publishes the metrics, and a scrape never competes with the API's limits. Beside
 * it, `GET /upstreams` answers the model servers' state now as JSON (for `inkwell models
 * upstreams`): names and states an operator reads, kept off the API port like the metrics. And
 * `GET /healthz` (liveness): Node takes one new connection per listening socket per event-loop
 * turn, so while the API port's accept queue holds thousands of new streams, a probe there waits
 * behind all of them (seconds); on this socket it waits one turn. A busy process is not a dead one.
 */
export async function listenForScrapes(metrics: Metrics, host: string, port: number): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = request.url?.split('?', 1)[0];
    if (path !== '/metrics' && path !== '/upstreams' && path !== '/healthz') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at /metrics, liveness at /healthz.\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed.\n');
      return;
    }
    if (path === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': LIVE.length }).end(request.method === 'HEAD' ? undefined : LIVE);
      return;
    }
    if (path === '/upstreams') {
      const body = JSON.stringify({ upstreams: metrics.upstreams().map(wireStatus) });
      response.writeHead(200, { 'content-type': 'application/json' }).end(request.method === 'HEAD' ? undefined : body);
      return;
    }
    metrics.render().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The metrics could not be collected.\n'),
    );
  });
  server.keepAliveTimeout = 65_000; // longer than a typical scrape interval, so scrapers keep one connection
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One upstream as `GET /upstreams` shows it (snake_case, as every JSON the service answers). */
function wireStatus(status: UpstreamStatus) {
  return {
    model: status.model,
    upstream: status.upstream,
    state: status.state,
    in_flight: status.inFlight,
    ...(status.returnsAt === undefined ? {} : { returns_at: new Date(status.returnsAt).toISOString() }),
  };
}
