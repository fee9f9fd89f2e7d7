/**
 * Many open streams at a model's pace: `--streams` streamed generations (default 5000) held open
 * at once on one Inkwell process, each fed by a paced upstream a token at a time (`--rate` chunks a
 * second, default 30, of `--chars` characters, default 4: the 2 KB answer of bench/gateway in
 * about 520 chunks, some 17 s). Three processes: the server (`taskset -c 0`), the paced upstream
 * and the load (bench/streams/paced-upstream.ts and clients.ts, both `taskset -c 1`).
 *
 * Reports whether every stream completed (a 200 with its content event and [DONE]), the drafts a
 * stream got, the server's memory per open stream (its RSS growth from before the load to the
 * most it held, over the most streams open at once), its event-loop delay while they were open
 * (prom-client's monitorEventLoopDelay, read from the metrics listener: p99 and max over the
 * window), /healthz latency as a new client sees it (asked from this process every 100 ms), and the
 * server's CPU per stream and per chunk (user and kernel), the share of a core each process used, and
 * the ledger reconciled (credits charged against streams completed).
 * `--server=floor|floor-parse` runs floor-proxy.ts in Inkwell's place (the least a Node process does per
 * stream); `--rate=0 --connections=N` is the unpaced harness (every chunk at once, a closed loop).
 * Usage: node --import tsx bench/streams/run.ts [--streams=N] [--rate=N] [--chars=N] [--ramp-ms=N]
 *          [--connections=N] [--server=inkwell|floor|floor-parse] [--bin=DIR/bin/inkwell.js] [--profile]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { sampleCpu } from '../gateway/proc.ts';
import { nowMicros, selfTimes } from '../gateway/profile.ts';
import { startInkwell, stopAll, type InkwellProcess } from '../gateway/server.ts';

const { values: flags } = parseArgs({
  options: {
    streams: { type: 'string', default: '5000' },
    rate: { type: 'string', default: '30' },
    chars: { type: 'string', default: '4' },
    'ramp-ms': { type: 'string', default: '8000' },
    // A closed loop on this many kept-alive connections instead of a ramp (the unpaced harness, with --rate=0).
    connections: { type: 'string' },
    bin: { type: 'string' },
    // inkwell, or the floor (floor-proxy.ts): the least a Node process does per stream; floor-parse also parses every event.
    server: { type: 'string', default: 'inkwell' },
    // The server under --cpu-prof: self time per function and file over the load (bench/gateway/profile.ts).
    profile: { type: 'boolean', default: false },
  },
});
const streams = Number(flags.streams);
if (!['inkwell', 'floor', 'floor-parse'].includes(flags.server!)) {
  console.error('--server is inkwell, floor or floor-parse');
  process.exit(2);
}
const HERE = import.meta.dirname;
const PROFILE_DIR = mkdtempSync(join(tmpdir(), 'inkwell-streams-profile-'));

/** A child process (on core 1 unless told) whose first stdout line is JSON; later lines go to `onLine`. */
async function child(script: string, args: string[], onLine: (line: Record<string, unknown>) => void = () => undefined, cpu = 1): Promise<{ first: Record<string, unknown>; process: ChildProcess; done: Promise<void> }> {
  const proc = spawn('taskset', ['-c', String(cpu), process.execPath, '--import', 'tsx', join(HERE, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout! });
  const done = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const first = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let seen = false;
    proc.once('exit', (code) => !seen && reject(new Error(`${script} exited (${code})`)));
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (!seen) {
        seen = true;
        resolve(parsed);
      } else onLine(parsed);
    });
  });
  return { first, process: proc, done };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The server process's own user and system CPU time, ms (its /proc stat fields 14 and 15). */
function userSystemMs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  const ticks = 100; // USER_HZ on Linux
  return { user: (Number(fields[11]) * 1000) / ticks, system: (Number(fields[12]) * 1000) / ticks };
}

const rssKb = (pid: number) => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

/**
 * /healthz latency, asked every 100 ms from this process (which does nothing else, unlike the
 * load's), on a connection of its own each time: how long a new client waits while the streams run.
 */
function probeHealth(url: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const ok = await new Promise<boolean>((resolve) => {
        const req = get(`${url}/healthz`, { agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
        });
        req.on('error', () => resolve(false));
      });
      latencies.push(ok ? performance.now() - started : Number.POSITIVE_INFINITY);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies;
    },
  };
}

/** prom-client's monitorEventLoopDelay resolution (its eventLoopMonitoringPrecision default), as the floor's. */
const LAG_SAMPLING_MS = 10;

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;

async function eventLoopLag(metricsPort: number): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99: value('nodejs_eventloop_lag_p99_seconds'), max: value('nodejs_eventloop_lag_max_seconds') };
}

interface Server {
  pid: number;
  url: string;
  liveKey: string;
  /** Inkwell's admin key (the balance); none for the floor. */
  adminKey?: string;
  metricsPort: number;
}

/** The organization's available credits, for Inkwell (undefined for the floor). */
async function balanceOf(server: Server): Promise<number | undefined> {
  if (!server.adminKey) return undefined;
  const response = await fetch(`${server.url}/v1/organization/balance`, { headers: { authorization: `Bearer ${server.adminKey}` } });
  return ((await response.json()) as { available_credits: number }).available_credits;
}

async function startServer(upstreamUrl: string): Promise<Server> {
  const metricsPort = await freePort();
  const server: InkwellProcess = await startInkwell({
    cpu: 0,
    upstreamUrl: '',
    pacedUrl: '',
    maxConcurrency: streams,
    ...(flags.bin ? { bin: flags.bin } : {}),
    ...(flags.profile ? { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] } : {}),
    config: { metrics: { port: metricsPort, host: '127.0.0.1' }, server: { request_timeout_ms: 0 } },
    models: [
      {
        id: 'up-paced',
        engine: 'openai-compatible',
        operations: ['svg_generate'],
        billing: { kind: 'fixed_credit', credits: { svg_generate: 1, svg_vectorize: 0 } },
        options: { base_url: upstreamUrl, model: 'bench', max_concurrency: Math.max(4, streams), first_token_timeout_ms: 600_000, total_timeout_ms: 1_200_000 },
      },
    ],
  });
  return { pid: server.pid, url: server.url, liveKey: server.liveKey, adminKey: server.adminKey, metricsPort };
}

let floor: ChildProcess | undefined;

/** The floor proxy on core 0, in Inkwell's place. */
async function startFloor(upstreamUrl: string): Promise<Server> {
  const started = await child('floor-proxy.ts', [upstreamUrl, ...(flags.server === 'floor-parse' ? ['parse'] : [])], undefined, 0);
  floor = started.process;
  return { pid: started.process.pid!, url: String(started.first.url), liveKey: 'none', metricsPort: Number(started.first.metricsPort) };
}

async function main(): Promise<void> {
  const upstream = await child('paced-upstream.ts', [flags.rate!, flags.chars!]);
  let server: Server | undefined;
  try {
    server = flags.server === 'inkwell' ? await startServer(String(upstream.first.url)) : await startFloor(String(upstream.first.url));
    const { pid, metricsPort } = server;
    // A few streams first, so the baseline is a warm server (its code compiled, its pools made).
    await child('clients.ts', [server.url, server.liveKey, 'up-paced', '20', '200']).then(({ done }) => done);
    const baselineKb = rssKb(pid);
    const creditsBefore = await balanceOf(server);
    const cpuBefore = sampleCpu(pid);
    const splitBefore = userSystemMs(pid);
    const upstreamBefore = userSystemMs(upstream.process.pid!);
    const wallBefore = performance.now();
    const windowStart = nowMicros();
    let maxOpen = 0;
    let peakKb = baselineKb;
    let lagWindow: Promise<{ p99: number; max: number }> | undefined;
    let result: Record<string, unknown> | undefined;
    await eventLoopLag(metricsPort); // resets the histogram: the window starts here
    const health = probeHealth(server.url);
    const load = await child('clients.ts', [server.url, server.liveKey, 'up-paced', String(streams), flags['ramp-ms']!, ...(flags.connections ? [flags.connections] : [])], (line) => {
      if (line.result) result = line;
      else if (typeof line.open === 'number') {
        const rss = rssKb(pid);
        if (line.open >= maxOpen) {
          maxOpen = line.open;
          peakKb = Math.max(peakKb, rss);
        }
        // The window of the event-loop figures ends once most streams are done.
        if (maxOpen === streams && line.open < streams / 10) lagWindow ??= eventLoopLag(metricsPort);
      }
    });
    await load.done;
    const healthz = await health.stop();
    const lag = await (lagWindow ?? eventLoopLag(metricsPort));
    const creditsAfter = await balanceOf(server);
    const cpuAfter = sampleCpu(pid);
    const splitAfter = userSystemMs(pid);
    const upstreamAfter = userSystemMs(upstream.process.pid!);
    const wallMs = performance.now() - wallBefore;
    const windowEnd = nowMicros();
    if (!result) throw new Error('the load ended without a result');
    if (flags.profile) {
      await stopAll(); // writes the profile
      const files = readdirSync(PROFILE_DIR).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(PROFILE_DIR, f));
      const { functions, files: byFile, totalMs } = selfTimes(files, join(HERE, '..', '..'), [[windowStart, windowEnd]]);
      console.log(`profile: ${totalMs.toFixed(0)} ms of samples in the window`);
      for (const f of functions.slice(0, 30)) console.log(`  ${f.ms.toFixed(0).padStart(6)} ms ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.name}`);
      for (const f of byFile.slice(0, 15)) console.log(`  ${f.ms.toFixed(0).padStart(6)} ms ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.name}`);
    }
    const report = {
      streams,
      rate_per_s: Number(flags.rate),
      chunks_per_stream: upstream.first.chunks,
      completed: result.completed,
      failed: result.failed,
      failures: result.failures,
      most_open_at_once: maxOpen,
      // Every completed stream is billed its one credit, and nothing else is: the ledger, reconciled.
      ...(creditsBefore === undefined ? {} : { credits_charged: creditsBefore - creditsAfter!, credits_expected: result.completed }),
      drafts_per_stream: Number(result.drafts_per_stream).toFixed(1),
      stream_s_p50: (Number(result.stream_ms_p50) / 1000).toFixed(1),
      rss_baseline_mb: (baselineKb / 1024).toFixed(0),
      rss_peak_mb: (peakKb / 1024).toFixed(0),
      kb_per_open_stream: ((peakKb - baselineKb) / Math.max(1, maxOpen)).toFixed(1),
      event_loop_p99_ms: lag.p99.toFixed(1),
      event_loop_max_ms: lag.max.toFixed(1),
      // The histogram records the time between its timer's runs, the sampling interval included: the delay is what exceeds it.
      event_loop_delay_p99_ms: Math.max(0, lag.p99 - LAG_SAMPLING_MS).toFixed(1),
      event_loop_delay_max_ms: Math.max(0, lag.max - LAG_SAMPLING_MS).toFixed(1),
      healthz_ms_p50: quantile(healthz, 0.5).toFixed(1),
      healthz_ms_p99: quantile(healthz, 0.99).toFixed(1),
      healthz_ms_max: quantile(healthz, 1).toFixed(1),
      server_cpu_ms_per_stream: ((cpuAfter.serverMs - cpuBefore.serverMs) / streams).toFixed(2),
      of_which_kernel_ms_per_stream: ((splitAfter.system - splitBefore.system) / streams).toFixed(2),
      // Core 1 holds the upstream and the load: together near 1.0, they (not the server) set the pace.
      upstream_core_share: ((upstreamAfter.user + upstreamAfter.system - upstreamBefore.user - upstreamBefore.system) / wallMs).toFixed(2),
      load_core_share: (Number(result.cpu_ms) / Number(result.wall_ms)).toFixed(2),
      server_core_share: ((cpuAfter.serverMs - cpuBefore.serverMs) / wallMs).toFixed(2),
      server_cpu_us_per_chunk: (((cpuAfter.serverMs - cpuBefore.serverMs) * 1000) / streams / Number(upstream.first.chunks)).toFixed(2),
    };
    console.log(JSON.stringify(report, null, 2));
  } finally {
    upstream.process.kill();
    floor?.kill();
    await stopAll();
  }
}

await main();
