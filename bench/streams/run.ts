/**
 * Many open streams at a model's pace: `--streams` streamed generations (default 5000) held open
 * at once on one Inkwell process, each fed by a paced upstream a token at a time (`--rate` chunks a
 * second, default 30, of `--chars` characters, default 4: the 2 KB answer of bench/gateway in
 * about 520 chunks, some 17 s). Three processes: the server (`taskset -c 0`), the paced upstream
 * and the load (bench/streams/paced-upstream.ts and clients.ts, both `taskset -c 1`).
 *
 * Reports whether every stream completed (a 200 with its content event and [DONE]), the drafts a
 * stream got, the most streams the clients had open at once and the most the server really carried
 * (the upstream's answers in progress: the rest wait in the kernel's accept queue, whose longest
 * length is reported too), the server's memory per carried stream (its RSS growth from before the
 * load to when it carried the most, over those streams; its RSS peak over the whole run beside it, which
 * may come later, as the streams end together), its event-loop delay while they were open
 * (prom-client's monitorEventLoopDelay, read from the metrics listener: p99 and max over the
 * window), /healthz latency as a new client sees it on the API port and on the metrics port (each
 * asked from this process every 100 ms), and the
 * server's CPU per stream and per chunk (user and kernel), the share of a core each process used, and
 * the ledger reconciled (credits charged against streams completed).
 * `--server=floor|floor-parse` runs floor-proxy.ts in Inkwell's place (the least a Node process does per
 * stream); `--rate=0 --connections=N` is the unpaced harness (every chunk at once, a closed loop).
 * `--heap-snapshot` adds a diagnosis (not a figure): what the server's heap holds once every stream is
 * open, less the warm server's, by constructor per stream carried; `--node-flags` runs the server with V8 settings to compare.
 * Streams arrive in model-server batches of `--batch` (default 256; 0: one batch), each batch's
 * chunks together and the batches out of phase (paced-upstream.ts).
 * Usage: node --import tsx bench/streams/run.ts [--streams=N] [--rate=N] [--chars=N] [--ramp-ms=N] [--batch=N]
 *          [--connections=N] [--server=inkwell|floor|floor-parse] [--bin=DIR/bin/inkwell.js] [--node=NODE] [--profile]
 *          [--heap-snapshot] [--node-flags="--max-semi-space-size=64"]
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs, promisify } from 'node:util';
import { pinSelf, sampleCpu } from '../gateway/proc.ts';
import { nowMicros, selfTimes } from '../gateway/profile.ts';
import { startInkwell, stopAll, type InkwellProcess } from '../gateway/server.ts';

const { values: flags } = parseArgs({
  options: {
    streams: { type: 'string', default: '5000' },
    rate: { type: 'string', default: '30' },
    chars: { type: 'string', default: '4' },
    'ramp-ms': { type: 'string', default: '8000' },
    // Streams per model-server batch, whose chunks arrive together (paced-upstream.ts); 0: all in one.
    batch: { type: 'string', default: '256' },
    // A closed loop on this many kept-alive connections instead of a ramp (the unpaced harness, with --rate=0).
    connections: { type: 'string' },
    bin: { type: 'string' },
    // Another Node binary for the server (Node 22 or 24, say), with a --bin checkout whose npm ci ran under it.
    node: { type: 'string' },
    // inkwell, or the floor (floor-proxy.ts): the least a Node process does per stream; floor-parse also parses every event.
    server: { type: 'string', default: 'inkwell' },
    // The server under --cpu-prof: self time per function and file over the load (bench/gateway/profile.ts).
    profile: { type: 'boolean', default: false },
    // A heap snapshot of the server once every stream is open, summarized by constructor (slow: a diagnosis, not a figure).
    'heap-snapshot': { type: 'boolean', default: false },
    // Node flags for the server, space-separated (e.g. "--max-semi-space-size=64"): V8's memory settings, compared.
    'node-flags': { type: 'string', default: '' },
  },
});
const streams = Number(flags.streams);
if (!['inkwell', 'floor', 'floor-parse'].includes(flags.server!)) {
  console.error('--server is inkwell, floor or floor-parse');
  process.exit(2);
}
const HERE = import.meta.dirname;
const execFileAsync = promisify(execFile);
// This process (the probes, the samplers) stays off the server's core, with the upstream and the load.
pinSelf(1);
const PROFILE_DIR = mkdtempSync(join(tmpdir(), 'inkwell-streams-profile-'));

/**
 * A child process (on core 1 unless told) whose first stdout line is JSON; every JSON line, the
 * first too, goes to `onLine` (a load done within its first second prints its result first).
 */
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
      }
      onLine(parsed);
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

/**
 * The connections waiting in the kernel's accept queue of the listener on this port (a LISTEN
 * socket's Recv-Q, from `ss`, which the kernel filters: /proc/net/tcp would list every one of the
 * run's sockets each time): Node takes one per event-loop turn, so under load they pile up.
 */
async function acceptQueue(port: number): Promise<number> {
  const { stdout } = await execFileAsync('ss', ['-Hltn', `sport = :${port}`]).catch(() => ({ stdout: '' }));
  return Number(stdout.trim().split(/\s+/)[1] ?? 0);
}

/** The most of `sample()` every 250 ms until stopped. */
function most(sample: () => number | Promise<number>): { stop(): Promise<number> } {
  let value = 0;
  const take = async () => (value = Math.max(value, await sample()));
  void take();
  const timer = setInterval(() => void take(), 250);
  return {
    stop: async () => {
      clearInterval(timer);
      await take();
      return value;
    },
  };
}

/**
 * The server's RSS every 250 ms: its peak, and what it was when the server carried the most streams
 * (the upstream's answers in progress): what carrying them costs, apart from the work of their start
 * and end, which may come later as the streams end together.
 */
function rssWhileCarrying(pid: number, upstreamUrl: string): { stop(): { streams: number; kb: number; peakKb: number } } {
  let best = { streams: 0, kb: 0 };
  let peakKb = rssKb(pid);
  const timer = setInterval(() => {
    void upstreamStats(upstreamUrl).then(({ serving }) => {
      const kb = rssKb(pid);
      peakKb = Math.max(peakKb, kb);
      if (serving >= best.streams) best = { streams: serving, kb: Math.max(serving === best.streams ? best.kb : 0, kb) };
    });
  }, 250);
  return {
    stop: () => {
      clearInterval(timer);
      return { ...best, peakKb: Math.max(peakKb, rssKb(pid)) };
    },
  };
}

/** The paced upstream's count of answers in progress (`reset`: the most is counted from now). */
async function upstreamStats(upstreamUrl: string, reset = false): Promise<{ serving: number; most_serving: number }> {
  const response = await fetch(new URL(`/stats${reset ? '?reset' : ''}`, upstreamUrl));
  return (await response.json()) as { serving: number; most_serving: number };
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

/** The server's event-loop delay since the last reading (p99, max, ms) and its garbage collections so far, from its metrics. */
async function loopAndCollector(metricsPort: number): Promise<{ p99: number; max: number; gc: GcTotals }> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99: value('nodejs_eventloop_lag_p99_seconds'), max: value('nodejs_eventloop_lag_max_seconds'), gc: gcTotals(text) };
}

/** Garbage collections so far by kind (prom-client's nodejs_gc_duration_seconds): how many, ms in all, how many over 10 and 100 ms. */
type GcTotals = Record<string, { count: number; ms: number; over10: number; over100: number }>;

function gcTotals(text: string): GcTotals {
  const totals: GcTotals = {};
  for (const kind of ['major', 'minor', 'incremental']) {
    const sample = (suffix: string, le?: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`nodejs_gc_duration_seconds_${suffix}{`) && l.includes(`kind="${kind}"`) && (le === undefined || l.includes(`le="${le}"`)));
      return Number(line?.split(' ').at(-1) ?? NaN);
    };
    const count = sample('count');
    if (Number.isNaN(count)) continue; // the floor's metrics have none
    totals[kind] = { count, ms: sample('sum') * 1000, over10: count - sample('bucket', '0.01'), over100: count - sample('bucket', '0.1') };
  }
  return totals;
}

/** The collections between two readings, as `kind: count (ms in all; over 10 ms, over 100 ms)`. */
function gcBetween(before: GcTotals, after: GcTotals): Record<string, string> {
  return Object.fromEntries(
    Object.entries(after).map(([kind, a]) => {
      const b = before[kind] ?? { count: 0, ms: 0, over10: 0, over100: 0 };
      return [kind, `${a.count - b.count} (${(a.ms - b.ms).toFixed(0)} ms; ${a.over10 - b.over10} over 10 ms, ${a.over100 - b.over100} over 100 ms)`];
    }),
  );
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
    ...(flags.node ? { node: flags.node } : {}),
    nodeFlags: [
      ...flags['node-flags']!.split(' ').filter(Boolean),
      ...(flags.profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
      ...(flags['heap-snapshot'] ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${PROFILE_DIR}`] : []),
    ],
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

/** The server's memory as its own metrics give it (V8's heap in use and reserved, memory outside it, RSS), MB. */
async function memoryBreakdown(metricsPort: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const mb = (name: string) => (Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1048576).toFixed(0);
  return `memory before the snapshot: rss ${mb('process_resident_memory_bytes')} MB, V8 heap used ${mb('nodejs_heap_size_used_bytes')} of ${mb('nodejs_heap_size_total_bytes')} MB, external ${mb('nodejs_external_memory_bytes')} MB`;
}

/**
 * The heap snapshot's self sizes by node type and name (an object's constructor), largest first,
 * per stream carried: what each stream keeps.
 */
/** A heap snapshot's self sizes by type (objects, closures and natives by constructor): bytes and count. */
function heapByConstructor(file: string): Map<string, { bytes: number; count: number }> {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const types = snapshot.snapshot.meta.node_types[0];
  const totals = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i + typeAt]!]!;
    const named = type === 'object' || type === 'native' || type === 'closure';
    const key = named ? `${type} ${snapshot.strings[snapshot.nodes[i + nameAt]!]}` : type;
    const entry = totals.get(key) ?? { bytes: 0, count: 0 };
    entry.bytes += snapshot.nodes[i + sizeAt]!;
    entry.count++;
    totals.set(key, entry);
  }
  return totals;
}

/**
 * What the carried streams added to the heap: the snapshot taken with them open, less the warm
 * server's (taken before the load), by constructor per stream, so the server's own code and
 * state are not spread over the streams.
 */
function summarizeHeap(baselineFile: string, loadedFile: string, streamsCarried: number): void {
  const baseline = heapByConstructor(baselineFile);
  const loaded = heapByConstructor(loadedFile);
  const sum = (totals: typeof loaded) => [...totals.values()].reduce((all, { bytes }) => all + bytes, 0);
  const per = Math.max(1, streamsCarried);
  const added = [...loaded].map(([key, { bytes, count }]) => {
    const before = baseline.get(key) ?? { bytes: 0, count: 0 };
    return { key, bytes: bytes - before.bytes, count: count - before.count };
  });
  const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
  console.log(`heap snapshots: ${mb(sum(baseline))} MB live when warm, ${mb(sum(loaded))} MB with ${streamsCarried} streams carried (${((sum(loaded) - sum(baseline)) / per / 1024).toFixed(1)} KB a stream); added per stream, by type and constructor:`);
  for (const { key, bytes, count } of added.sort((a, b) => b.bytes - a.bytes).slice(0, 30)) {
    console.log(`  ${(bytes / per / 1024).toFixed(2).padStart(7)} KB ${(count / per).toFixed(1).padStart(7)} ×  ${key}`);
  }
}

/** Asks the server for a heap snapshot and waits until it is written (the file named and its size settled). */
async function heapSnapshot(pid: number): Promise<string> {
  const before = new Set(readdirSync(PROFILE_DIR));
  process.kill(pid, 'SIGUSR2');
  let size = -1;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const file = readdirSync(PROFILE_DIR).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!file) continue;
    const now = statSync(join(PROFILE_DIR, file)).size;
    if (now > 0 && now === size) return join(PROFILE_DIR, file);
    size = now;
  }
}

async function main(): Promise<void> {
  const upstream = await child('paced-upstream.ts', [flags.rate!, flags.chars!, flags.batch!]);
  let server: Server | undefined;
  try {
    server = flags.server === 'inkwell' ? await startServer(String(upstream.first.url)) : await startFloor(String(upstream.first.url));
    const { pid, metricsPort } = server;
    // A few streams first, so the baseline is a warm server (its code compiled, its pools made).
    await child('clients.ts', [server.url, server.liveKey, 'up-paced', '20', '200']).then(({ done }) => done);
    const baselineKb = rssKb(pid);
    const baselineSnapshot = flags['heap-snapshot'] ? await heapSnapshot(pid) : undefined;
    const creditsBefore = await balanceOf(server);
    const cpuBefore = sampleCpu(pid);
    const splitBefore = userSystemMs(pid);
    const upstreamBefore = userSystemMs(upstream.process.pid!);
    const wallBefore = performance.now();
    const windowStart = nowMicros();
    let maxOpen = 0;
    let snapshotAsked = false;
    let loadedSnapshot: Promise<string> | undefined;
    let memoryLine = '';
    await upstreamStats(String(upstream.first.url), true);
    const carrying = rssWhileCarrying(pid, String(upstream.first.url));
    const queued = most(() => acceptQueue(Number(new URL(server!.url).port)));
    let lagWindow: ReturnType<typeof loopAndCollector> | undefined;
    let result: Record<string, unknown> | undefined;
    const gcBefore = (await loopAndCollector(metricsPort)).gc; // resets the delay histogram: the window starts here
    const health = probeHealth(server.url);
    const opsHealth = probeHealth(`http://127.0.0.1:${metricsPort}`);
    const load = await child('clients.ts', [server.url, server.liveKey, 'up-paced', String(streams), flags['ramp-ms']!, ...(flags.connections ? [flags.connections] : [])], (line) => {
      if (line.result) result = line;
      else if (typeof line.open === 'number') {
        maxOpen = Math.max(maxOpen, line.open);
        if (flags['heap-snapshot'] && line.open === streams && !snapshotAsked) {
          snapshotAsked = true;
          // Once the last streams are past their start: where the memory is (before the snapshot's collection), then the snapshot.
          setTimeout(() => void memoryBreakdown(metricsPort).then((line) => (memoryLine = line)).finally(() => (loadedSnapshot = heapSnapshot(pid))), 2000);
        }
        // The window of the event-loop figures ends once most streams are done.
        if (maxOpen === streams && line.open < streams / 10) lagWindow ??= loopAndCollector(metricsPort);
      }
    });
    await load.done;
    const healthz = await health.stop();
    const opsHealthz = await opsHealth.stop();
    const atMost = carrying.stop();
    const acceptQueueMax = await queued.stop();
    const carried = (await upstreamStats(String(upstream.first.url))).most_serving;
    const lag = await (lagWindow ?? loopAndCollector(metricsPort));
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
    if (flags['heap-snapshot']) {
      console.log(memoryLine);
      if (baselineSnapshot && loadedSnapshot) summarizeHeap(baselineSnapshot, await loadedSnapshot, carried);
    }
    const report = {
      streams,
      node: flags.node ? execFileSync(flags.node, ['--version'], { encoding: 'utf8' }).trim() : process.version,
      ...(flags['node-flags'] ? { node_flags: flags['node-flags'] } : {}),
      rate_per_s: Number(flags.rate),
      batch: Number(flags.batch) || 'all',
      chunks_per_stream: upstream.first.chunks,
      completed: result.completed,
      failed: result.failed,
      failures: result.failures,
      most_open_at_once: maxOpen,
      // What the server carried at once (the upstream's answers in progress); the rest waited to be accepted.
      most_carried_at_once: carried,
      accept_queue_max: acceptQueueMax,
      // Every completed stream is billed its one credit, and nothing else is: the ledger, reconciled.
      ...(creditsBefore === undefined ? {} : { credits_charged: creditsBefore - creditsAfter!, credits_expected: result.completed }),
      drafts_per_stream: Number(result.drafts_per_stream).toFixed(1),
      stream_s_p50: (Number(result.stream_ms_p50) / 1000).toFixed(1),
      // A stream's wait for its headers (accepted, authenticated, reserved) and its time from them to the end.
      wait_s_p50: (Number(result.wait_ms_p50) / 1000).toFixed(2),
      wait_s_p99: (Number(result.wait_ms_p99) / 1000).toFixed(2),
      streaming_s_p50: (Number(result.streaming_ms_p50) / 1000).toFixed(1),
      rss_baseline_mb: (baselineKb / 1024).toFixed(0),
      rss_peak_mb: (atMost.peakKb / 1024).toFixed(0),
      rss_carrying_most_mb: (atMost.kb / 1024).toFixed(0),
      kb_per_carried_stream: ((atMost.kb - baselineKb) / Math.max(1, atMost.streams)).toFixed(1),
      event_loop_p99_ms: lag.p99.toFixed(1),
      event_loop_max_ms: lag.max.toFixed(1),
      // The histogram records the time between its timer's runs, the sampling interval included: the delay is what exceeds it.
      event_loop_delay_p99_ms: Math.max(0, lag.p99 - LAG_SAMPLING_MS).toFixed(1),
      event_loop_delay_max_ms: Math.max(0, lag.max - LAG_SAMPLING_MS).toFixed(1),
      // Pauses of the server's garbage collector over the same window, by kind.
      gc: gcBetween(gcBefore, lag.gc),
      healthz_ms_p50: quantile(healthz, 0.5).toFixed(1),
      healthz_ms_p99: quantile(healthz, 0.99).toFixed(1),
      healthz_ms_max: quantile(healthz, 1).toFixed(1),
      metrics_port_healthz_ms_p99: quantile(opsHealthz, 0.99).toFixed(1),
      metrics_port_healthz_ms_max: quantile(opsHealthz, 1).toFixed(1),
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
