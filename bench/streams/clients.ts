/**
 * The load of the many-streams benchmark, as a process of its own: `STREAMS` streamed generations
 * opened over `RAMP_MS`, each on a connection of its own and read to its end (events counted as
 * they are parsed). With `CONNECTIONS`, a closed loop instead, as autocannon runs: that many
 * kept-alive connections, each starting its next stream when the last ended, `STREAMS` in all.
 * Prints one JSON line per second while it runs ({"open":…}), then the result.
 * Usage: node --import tsx bench/streams/clients.ts URL KEY MODEL STREAMS RAMP_MS [CONNECTIONS]
 */
import { Agent, request } from 'node:http';
import { createParser } from 'eventsource-parser';

const [url, key, model, streamsArg, rampArg, connectionsArg] = process.argv.slice(2) as [string, string, string, string, string, string | undefined];
const streams = Number(streamsArg);
const rampMs = Number(rampArg);
const connections = connectionsArg === undefined ? undefined : Number(connectionsArg);
const agent = connections === undefined ? new Agent({ keepAlive: false, maxSockets: Infinity }) : new Agent({ keepAlive: true, maxSockets: connections });
const target = new URL(url);

interface Outcome {
  ok: boolean;
  drafts: number;
  ms: number;
  /** Until the response's headers: the wait to be accepted and admitted, before the first event. */
  waitMs: number;
  detail?: string;
}

function generate(): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const body = JSON.stringify({ model, prompt: 'a lighthouse at dusk', stream: true });
    const req = request(
      { host: target.hostname, port: target.port, path: '/v1/svgs/generations', method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const waitMs = performance.now() - started;
        let drafts = 0;
        let content = false;
        let done = false;
        let error: string | undefined;
        const parser = createParser({
          onEvent: (event) => {
            if (event.event === 'draft') drafts++;
            else if (event.event === 'content') content = true;
            else if (event.event === 'error') error = event.data.slice(0, 200);
            else if (event.data === '[DONE]') done = true;
          },
        });
        res.setEncoding('utf8');
        res.on('data', (text: string) => parser.feed(text));
        res.on('end', () => {
          const ok = res.statusCode === 200 && content && done && !error;
          resolve({ ok, drafts, ms: performance.now() - started, waitMs, ...(ok ? {} : { detail: error ?? `status ${res.statusCode}, content ${content}, done ${done}` }) });
        });
        res.on('error', (e) => resolve({ ok: false, drafts, ms: performance.now() - started, waitMs, detail: e.message }));
      },
    );
    req.on('error', (e) => resolve({ ok: false, drafts: 0, ms: performance.now() - started, waitMs: performance.now() - started, detail: e.message }));
    req.end(body);
  });
}

let open = 0;
const ticker = setInterval(() => console.log(JSON.stringify({ open })), 1000);
const started = performance.now();

/** `streams` streams opened evenly over the ramp, each on a new connection. */
async function ramp(): Promise<Outcome[]> {
  const outcomes: Promise<Outcome>[] = [];
  for (let i = 0; i < streams; i++) {
    const due = (i * rampMs) / streams - (performance.now() - started);
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
    open++;
    outcomes.push(generate().finally(() => open--));
  }
  return Promise.all(outcomes);
}

/** `streams` streams over `count` kept-alive connections, each connection's one after another. */
async function closedLoop(count: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let begun = 0;
  const worker = async () => {
    while (begun < streams) {
      begun++;
      open++;
      outcomes.push(await generate());
      open--;
    }
  };
  await Promise.all(Array.from({ length: count }, worker));
  return outcomes;
}

const results = connections === undefined ? await ramp() : await closedLoop(connections);
clearInterval(ticker);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const pick = (values: number[], q: number) => sorted(values)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
const failed = results.filter((r) => !r.ok);
console.log(
  JSON.stringify({
    result: true,
    streams,
    completed: results.length - failed.length,
    failed: failed.length,
    failures: [...new Set(failed.map((f) => f.detail))].slice(0, 5),
    drafts_per_stream: results.reduce((sum, r) => sum + r.drafts, 0) / results.length,
    stream_ms_p50: pick(results.map((r) => r.ms), 0.5),
    stream_ms_max: pick(results.map((r) => r.ms), 1),
    wait_ms_p50: pick(results.map((r) => r.waitMs), 0.5),
    wait_ms_p99: pick(results.map((r) => r.waitMs), 0.99),
    // From the headers to the end: the pace the server kept once it had taken the stream.
    streaming_ms_p50: pick(results.map((r) => r.ms - r.waitMs), 0.5),
    // This process's own CPU over its life, so the report shows whether the load kept up.
    cpu_ms: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
    wall_ms: performance.now() - started,
  }),
);
