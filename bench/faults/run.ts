/**
 * Model answers at the output byte limit, and what they cost everyone else: ten at once, in one
 * SSE event and in 100 000, to streaming and to JSON clients, while a client polls `/healthz`
 * every 50 ms. Reports the worst and p99 `/healthz` wait, the server's RSS (its own and its
 * workers') at start, at peak and after 30 s idle, and what the clients got.
 *
 *   node --import tsx bench/faults/run.ts
 *
 * BENCH_CONCURRENCY (10), BENCH_ROUNDS (3), BENCH_ANSWER_BYTES (790 000), BENCH_CHUNKS (100 000),
 * BENCH_IDLE_SECONDS (30), BENCH_SERVER_CPUS (0; `0,1` for both cores), BENCH_ONLY (a scenario
 * label's part), BENCH_PROFILE_DIR (the server's --cpu-prof), BENCH_NODE_FLAGS.
 *
 * The server runs pinned to core 0 (`inkwell serve` from dist/, as `npm start` runs it), the
 * model server, the poller and this process (the clients) pinned to core 1. Linux only (/proc,
 * taskset).
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { startInkwell, stopAll } from '../gateway/server.ts';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const ANSWER_BYTES = Number(process.env.BENCH_ANSWER_BYTES ?? 790_000);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100_000);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
/** Each scenario runs this many rounds of CONCURRENCY answers, so its p99 rests on a few hundred polls. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const POLL_MS = 50;
/** A directory for the server's --cpu-prof profile (written when it stops). */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/** Only the scenarios whose label includes this (e.g. `JSON`, `one chunk`). */
const ONLY = process.env.BENCH_ONLY;

/** RSS in MB of a process and of its descendants (the render and tracer workers). */
function rss(root: number): { own: number; workers: number } {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const ownRss = (pid: number) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  };
  const isDescendant = (pid: number): boolean => {
    for (let at = parentOf.get(pid); at !== undefined && at > 1; at = parentOf.get(at)) if (at === root) return true;
    return false;
  };
  let workers = 0;
  for (const pid of parentOf.keys()) if (pid !== root && isDescendant(pid)) workers += ownRss(pid);
  return { own: ownRss(root), workers };
}

/** The /healthz poller, in a process of its own pinned to core 1: start(), then stop() resolves with each wait in ms. */
function startPoller(url: string) {
  const child = fork(join(import.meta.dirname, 'poller.ts'), [url, String(POLL_MS)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  execFileSync('taskset', ['-p', '-c', '1', String(child.pid)], { stdio: 'ignore' });
  return {
    start: () => child.send('start'),
    stop: () =>
      new Promise<number[]>((resolve) => {
        child.once('message', (waits) => resolve(waits as number[]));
        child.send('stop');
      }),
    close: () => child.kill(),
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

async function startUpstream(): Promise<{ url: string; stop(): void }> {
  // Niced, like this process: the poller beside them on core 1 must not wait for the load it measures.
  const child = spawn('taskset', ['-c', '1', 'nice', '-n', '10', process.execPath, '--import', 'tsx', join(import.meta.dirname, 'upstream.ts')], {
    env: { ...process.env, BENCH_ANSWER_BYTES: String(ANSWER_BYTES), BENCH_CHUNKS: String(CHUNKS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bench upstream exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  return { url, stop: () => child.kill() };
}

/** One request as a client makes it: the status, the bytes of SVG it got and what failed. */
async function generate(url: string, key: string, model: string, stream: boolean) {
  const response = await fetch(`${url}/v1/svgs/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, prompt: 'many small squares', stream }),
  });
  const text = await response.text();
  if (!stream) {
    const body = JSON.parse(text);
    return { status: response.status, svgBytes: body.data?.[0]?.svg?.length ?? 0, error: body.code as string | undefined, draftBytes: 0 };
  }
  let svgBytes = 0;
  let draftBytes = 0;
  let error: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const event = JSON.parse(line.slice(6));
    if (event.type === 'content') svgBytes = event.svg.length;
    if (event.type === 'draft') draftBytes += event.svg.length;
    if (event.type === 'error') error = event.code;
  }
  return { status: response.status, svgBytes, error, draftBytes };
}

// The clients (this process) stay off the server's core, like the model server and the poller.
execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
setPriority(10);
const upstream = await startUpstream();
const entry = (id: string, model: string, options: Record<string, unknown> = {}) => ({
  id,
  engine: 'openai-compatible',
  operations: ['svg_generate'],
  billing: { kind: 'fixed_credit', credits: { svg_generate: 1, svg_vectorize: 0 } },
  options: { base_url: upstream.url, model, max_concurrency: 64, total_timeout_ms: 300_000, ...options },
});
/** A free port for the server's metrics listener (its event-loop delay is read from there). */
const metricsPort = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});

/** The server's own event-loop delay since the last read, in ms (prom-client's monitorEventLoopDelay, reset at each scrape). */
async function loopDelay(): Promise<{ max: number; p99: number }> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} ([\\d.e+-]+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { max: read('nodejs_eventloop_lag_max_seconds'), p99: read('nodejs_eventloop_lag_p99_seconds') };
}

const server = await startInkwell({
  config: { metrics: { port: metricsPort } },
  // BENCH_SERVER_CPUS=0,1 lets the server and its workers use both cores.
  cpu: process.env.BENCH_SERVER_CPUS ?? 0,
  upstreamUrl: upstream.url,
  pacedUrl: upstream.url,
  maxConcurrency: 64,
  nodeFlags: [...(PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-interval', '250', '--cpu-prof-dir', PROFILE_DIR] : []), ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])],
  models: [entry('one-chunk', 'one-chunk'), entry('many-chunks', 'many-chunks'), entry('over-limit', 'one-chunk', { max_output_bytes: Math.floor(ANSWER_BYTES / 2) })],
});
process.on('SIGINT', () => void stopAll().finally(() => process.exit(130)));

const poller = startPoller(server.url);
try {
  // Steady state: two answers at once start both render workers before anything is measured.
  await Promise.all([generate(server.url, server.liveKey, 'one-chunk', false), generate(server.url, server.liveKey, 'one-chunk', false)]);
  await sleep(1000);
  const start = rss(server.pid);
  console.log(`server pid ${server.pid}; ${CONCURRENCY} answers of ${ANSWER_BYTES} bytes at once; RSS at start ${start.own.toFixed(0)} MB (+ workers ${start.workers.toFixed(0)} MB)`);
  console.log('| answers | client | /healthz worst ms | p99 ms | polls | server loop delay max / p99 ms | s per round | outcome | SVG bytes each | draft bytes each | RSS peak MB (workers) |');
  console.log('|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|');
  let peakOwn = start.own;
  for (const [model, label] of [['one-chunk', 'one chunk'], ['many-chunks', `${CHUNKS} chunks`], ['over-limit', 'one chunk, limit ½ of it']] as const) {
    for (const stream of [true, false]) {
      if (ONLY && !`${label} ${stream ? 'stream' : 'JSON'}`.includes(ONLY)) continue;
      await loopDelay();
      poller.start();
      let peak = rss(server.pid);
      const sampler = setInterval(() => {
        const now = rss(server.pid);
        if (now.own + now.workers > peak.own + peak.workers) peak = now;
      }, 100);
      const began = performance.now();
      const results: Awaited<ReturnType<typeof generate>>[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        results.push(...(await Promise.all(Array.from({ length: CONCURRENCY }, () => generate(server.url, server.liveKey, model, stream)))));
      }
      const took = (performance.now() - began) / 1000 / ROUNDS;
      clearInterval(sampler);
      await sleep(200);
      const waits = await poller.stop();
      const delay = await loopDelay();
      peakOwn = Math.max(peakOwn, peak.own);
      const outcomes = [...new Set(results.map((r) => `${r.status}${r.error ? ` ${r.error}` : ''}`))].join(', ');
      const svg = Math.max(...results.map((r) => r.svgBytes));
      const drafts = Math.max(...results.map((r) => r.draftBytes));
      console.log(
        `| ${label} | ${stream ? 'stream' : 'JSON'} | ${Math.max(...waits).toFixed(1)} | ${percentile(waits, 99).toFixed(1)} | ${waits.length} | ${delay.max.toFixed(0)} / ${delay.p99.toFixed(0)} | ${took.toFixed(1)} | ${outcomes} | ${svg} | ${stream ? drafts : '—'} | ${peak.own.toFixed(0)} (${peak.workers.toFixed(0)}) |`,
      );
    }
  }
  await sleep(IDLE_SECONDS * 1000);
  const idle = rss(server.pid);
  console.log(`RSS: start ${start.own.toFixed(0)} MB, peak ${peakOwn.toFixed(0)} MB (growth ${(peakOwn - start.own).toFixed(0)} MB), after ${IDLE_SECONDS} s idle ${idle.own.toFixed(0)} MB; workers ${idle.workers.toFixed(0)} MB`);
} finally {
  poller.close();
  await stopAll();
  upstream.stop();
}
