/**
 * The floor of the many-streams benchmark: the least a Node process must do to carry a paced
 * stream, measured with the same upstream, load and figures as Inkwell. Each `POST` opens an SSE
 * response, calls the upstream through an undici Pool with a dispatch handler (as Inkwell's
 * reception does), reads its answer to `[DONE]`, and then sends one `content` event and
 * `[DONE]`. With `parse`, every upstream event also goes through eventsource-parser and
 * JSON.parse (the reading no gateway can skip); without it, the bytes are only searched for the end.
 * Prints its URL and its metrics port on stdout; GET /metrics on that port gives the event-loop
 * delay since the last read, in prom-client's names, as Inkwell's metrics listener does, and
 * GET /healthz there answers as Inkwell's does.
 * Usage: node --import tsx bench/streams/floor-proxy.ts UPSTREAM_URL [parse]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { Pool, type Dispatcher } from 'undici';

const upstream = new URL(process.argv[2]!);
const parse = process.argv[3] === 'parse';
const pool = new Pool(upstream.origin, { keepAliveTimeout: 30_000 });
const path = `${upstream.pathname.replace(/\/+$/, '')}/chat/completions`;
const DONE = Buffer.from('[DONE]');

/** One upstream answer read to its end; `ended` is called once, however it ends. */
function relay(body: string, ended: (ok: boolean) => void): void {
  let done = false;
  let chunks = 0;
  const parser = parse
    ? createParser({
        onEvent: (event) => {
          if (event.data === '[DONE]') done = true;
          else if ((JSON.parse(event.data) as { choices?: unknown }).choices) chunks++;
        },
      })
    : undefined;
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart: () => undefined,
    onResponseStart: () => undefined,
    onResponseData: (_controller, chunk: Buffer) => {
      if (parser) parser.feed(chunk.toString('utf8'));
      else if (chunk.includes(DONE)) done = true;
    },
    onResponseEnd: () => ended(done || chunks > 0),
    onResponseError: () => ended(false),
  };
  pool.dispatch({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body, headersTimeout: 0, bodyTimeout: 0 }, handler);
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') return void res.end('ok'); // /healthz
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders(); // at once, as Inkwell's streams: the load's wait ends with them
    relay(JSON.stringify({ model: 'bench', stream: true, stream_options: { include_usage: true }, messages: [] }), (ok) => {
      res.end(ok ? 'event: content\ndata: {}\n\ndata: [DONE]\n\n' : 'event: error\ndata: {}\n\n');
    });
  });
});
server.maxConnections = 100_000;

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const metrics = createServer((req, res) => {
  if (req.url === '/healthz') return void res.end('ok'); // liveness on this port too, as Inkwell's; it leaves the figures alone
  res.end(`nodejs_eventloop_lag_p99_seconds ${delay.percentile(99) / 1e9}\nnodejs_eventloop_lag_max_seconds ${delay.max / 1e9}\n`);
  delay.reset();
});

server.listen(0, '127.0.0.1', 4096, () => {
  metrics.listen(0, '127.0.0.1', () => {
    const port = (server.address() as AddressInfo).port;
    console.log(JSON.stringify({ url: `http://127.0.0.1:${port}`, metricsPort: (metrics.address() as AddressInfo).port }));
  });
});
