/**
 * Gateway benchmark: what the openai-compatible engine adds to a request. In one run, a scripted
 * OpenAI-compatible upstream answering at once with a 2 KB SVG (non-streaming, and streaming in
 * 40 chunks) is called directly and through Inkwell with a live key on a fixed-credit model
 * (`up-fixed`), next to the same request on a sandbox-backed fixed-credit model
 * (`sandbox-fixed`). Reported: requests per second, server CPU per request (utime + stime of the
 * server process and of its worker processes, from /proc, over the measured window), added p50
 * at one connection, and the time from the upstream's first complete element to the client's
 * first `draft`.
 *
 * The server is its own process pinned to core 0; this process (load generator and upstream)
 * pins itself, all its threads, to core 1 (`taskset --all-tasks --pid`). Ctrl-C or SIGTERM stop
 * the server too (it runs in a process group of its own).
 *
 * Usage: npm run bench:gateway [-- --check]
 *        npm run bench:gateway -- --profile [--profile-model=up-fixed|sandbox-fixed] [--profile-mode=json|stream|both]
 * Env: BENCH_DURATION (s per target, 10), BENCH_WARMUP (s, 2), BENCH_CONNECTIONS (32),
 * BENCH_P50_DURATION (s per target at one connection, 5), BENCH_DRAFTS (20), BENCH_DRAFT_GAP_MS (20),
 * BENCH_PROFILE_DIR (with --profile: keep the .cpuprofile files there).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import { createParser } from 'eventsource-parser';
import { startFakeUpstream } from '../../test/fakes/upstream.ts';
import { startPacedUpstream } from './paced-upstream.ts';
import { nowMicros, selfTimes, type SelfTime } from './profile.ts';
import { allowedCpus, machineBusyMs, pinSelf, sampleCpu, type CpuSample } from './proc.ts';
import { startInkwell, stopAll, type InkwellProcess } from './server.ts';
import { ANSWER_SVG, CHUNKS, firstElementChunk, PIECES, USAGE } from './svg.ts';

const SERVER_CPU = 0;
const CLIENT_CPU = 1;
pinSelf(CLIENT_CPU);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`bench:gateway: ${signal}, stopping the server`);
    void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

const { values: flags } = parseArgs({
  options: {
    check: { type: 'boolean', default: false }, // exit 1 when a target is missed
    profile: { type: 'boolean', default: false }, // profile the server under load instead of measuring
    'profile-model': { type: 'string', default: 'up-fixed' },
    'profile-mode': { type: 'string', default: 'both' }, // json | stream | both
  },
});
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const DURATION_S = env('BENCH_DURATION', 10);
const WARMUP_S = env('BENCH_WARMUP', 2);
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const P50_DURATION_S = env('BENCH_P50_DURATION', 5);
const DRAFTS = env('BENCH_DRAFTS', 20);
const DRAFT_GAP_MS = env('BENCH_DRAFT_GAP_MS', 20);
const TARGETS = { nonStreamingMs: 0.5, streamingMs: 1.0, firstDraftMs: 5 };
/** The whole engine path, not only what it adds to the sandbox's (the performance issue's targets). */
const ABSOLUTE_TARGETS = { json: 0.8, stream: 1.2 };
const ROOT = join(import.meta.dirname, '../..');

type Mode = 'json' | 'stream';

interface Target {
  label: string;
  mode: Mode;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Whether a 200's body carries the finished SVG. */
  verify: (body: string) => boolean;
  /** The server process to account CPU to (none for the upstream called directly). */
  serverPid?: number;
}

interface Row {
  target: Target;
  rps: number;
  p50: number;
  p99: number;
  served: number;
  /** Non-2xx, socket errors, timeouts and 200s without the SVG. */
  bad: number;
  serverMsPerRequest?: number;
  childrenMsPerRequest?: number;
  /** Descendants' CPU per request by process name (render workers are `node`; tsx may keep an `esbuild` service). */
  childrenByName?: Record<string, number>;
  /** Child processes that started inside the window (a render worker restarted: its start-up is in the figures). */
  childrenStarted?: string[];
  /** This process's CPU use over the window, % of its one core: near 100 means the client side was the limit. */
  clientCpuPercent: number;
  /** CPU the rest of the machine used over the window, % of one core: other work on the two cores makes the figures noisy. */
  otherCpuPercent: number;
  /** The measured window, µs on the monotonic clock (to cut a CPU profile to it). */
  window: [number, number];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One autocannon run; response times kept as floats (autocannon's own histogram is in whole ms). */
async function cannon(target: Target, connections: number, durationS: number): Promise<{ result: any; times: number[] }> {
  const times: number[] = [];
  const instance = autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    connections,
    duration: durationS,
    verifyBody: target.verify,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status === 200) times.push(ms);
  });
  const result = await instance;
  return { result, times };
}

function byName(before: CpuSample, after: CpuSample, served: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const kid of after.children) {
    const earlier = before.children.find((other) => other.pid === kid.pid)?.ms ?? 0;
    out[kid.comm] = (out[kid.comm] ?? 0) + (kid.ms - earlier) / served;
  }
  return out;
}

/** One request alone; throws unless it is a 200 with the finished SVG. */
async function prime(target: Target): Promise<void> {
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body });
  const text = await response.text();
  if (response.status !== 200 || !target.verify(text)) throw new Error(`${target.label} (${target.mode}): ${response.status} ${text.slice(0, 300)}`);
}

async function measure(target: Target, connections: number, durationS: number): Promise<Row> {
  await cannon(target, connections, WARMUP_S); // JIT, connection pools and worker processes settled
  // autocannon ends a run by closing its connections mid-request; the server then kills the render
  // worker of an aborted render, and the next render starts a new one. One request on its own
  // after the warm-up brings the worker back before the window opens, so its start-up is not counted.
  await prime(target);
  const before = target.serverPid ? sampleCpu(target.serverPid) : undefined;
  const machineBefore = machineBusyMs();
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const from = nowMicros();
  const { result, times } = await cannon(target, connections, durationS);
  const to = nowMicros();
  const elapsedMs = performance.now() - started;
  const client = process.cpuUsage(clientBefore);
  const after = target.serverPid ? sampleCpu(target.serverPid) : undefined;
  const machineMs = machineBusyMs() - machineBefore;
  const oursMs = (client.user + client.system) / 1000 + (before && after ? after.serverMs - before.serverMs + after.childrenMs - before.childrenMs : 0);
  const served = result.requests.total as number;
  const bad = result.non2xx + result.errors + result.timeouts + result.mismatches;
  const startedInWindow = before && after ? after.children.filter((kid) => !before.children.some((other) => other.pid === kid.pid)) : [];
  return {
    target,
    rps: served / (elapsedMs / 1000),
    p50: median(times),
    p99: percentile(times, 99),
    served,
    bad,
    ...(before && after
      ? {
          serverMsPerRequest: (after.serverMs - before.serverMs) / served,
          childrenMsPerRequest: (after.childrenMs - before.childrenMs) / served,
          childrenByName: byName(before, after, served),
          childrenStarted: startedInWindow.map((kid) => `${kid.pid} (${kid.comm})`),
        }
      : {}),
    clientCpuPercent: ((client.user + client.system) / 1000 / elapsedMs) * 100,
    otherCpuPercent: (Math.max(0, machineMs - oursMs) / elapsedMs) * 100,
    window: [from, to],
  };
}

function inkwellTarget(server: InkwellProcess, model: string, mode: Mode): Target {
  return {
    label: `Inkwell → ${model}`,
    mode,
    url: `${server.url}/v1/svgs/generations`,
    headers: { authorization: `Bearer ${server.liveKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, prompt: 'a lighthouse at dusk', ...(mode === 'stream' ? { stream: true } : {}) }),
    verify: mode === 'stream' ? (body) => body.includes('"type":"content"') && body.endsWith('data: [DONE]\n\n') : (body) => body.includes('"svg":"<svg'),
    serverPid: server.pid,
  };
}

function upstreamTarget(url: string, mode: Mode): Target {
  return {
    label: 'upstream, direct',
    mode,
    url: `${url}/chat/completions`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'bench',
      messages: [{ role: 'user', content: 'a lighthouse at dusk' }],
      ...(mode === 'stream' ? { stream: true, stream_options: { include_usage: true } } : { stream: false }),
    }),
    verify: mode === 'stream' ? (body) => body.includes('</svg>') && body.endsWith('data: [DONE]\n\n') : (body) => body.includes('</svg>'),
  };
}

/** First-draft latency: one streamed request at a time on the paced upstream, `DRAFTS` times. */
async function draftLatencies(server: InkwellProcess, markedAt: number[]): Promise<{ latencies: number[]; bad: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ model: 'up-paced', prompt: 'a lighthouse at dusk', stream: true });
  const latencies: number[] = [];
  let bad = 0;
  for (let i = 0; i < DRAFTS + 2; i++) {
    const marks = markedAt.length;
    const { firstDraftAt, ok } = await new Promise<{ firstDraftAt?: number; ok: boolean }>((resolve, reject) => {
      let firstDraftAt: number | undefined;
      let content = false;
      const parser = createParser({
        onEvent: (message) => {
          if (message.data === '[DONE]') return;
          const type = (JSON.parse(message.data) as { type: string }).type;
          if (type === 'draft' && firstDraftAt === undefined) firstDraftAt = performance.now();
          if (type === 'content') content = true;
        },
      });
      const req = httpRequest(`${server.url}/v1/svgs/generations`, {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${server.liveKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        res.setEncoding('utf8');
        res.on('data', (text: string) => parser.feed(text));
        res.on('end', () => resolve({ firstDraftAt, ok: res.statusCode === 200 && content }));
      });
      req.on('error', reject);
      req.end(body);
    });
    if (!ok || firstDraftAt === undefined || markedAt.length !== marks + 1) {
      bad++;
      continue;
    }
    if (i >= 2) latencies.push(firstDraftAt - markedAt[marks]!); // the first two warm up
  }
  agent.destroy();
  return { latencies, bad };
}

/** The commit measured, and whether src/ had uncommitted changes (the figures are of the working tree). */
function sourceState(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trimEnd().split('\n').filter(Boolean);
    return `commit ${head}${dirty.length ? ` + uncommitted changes in ${dirty.length} src file(s): ${dirty.map((line) => line.slice(3)).join(', ')}` : ', src clean'}`;
  } catch {
    return 'not a git checkout';
  }
}

const fmt = (value: number | undefined, digits = 2) => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits));

interface Profiled {
  row: Row;
  functions: SelfTime[];
  files: SelfTime[];
  busyMs: number;
}

/** One server process under `--cpu-prof`, loaded as in the measurement; self time over the measured window only. */
async function profileOne(upstreamUrl: string, model: string, mode: Mode): Promise<Profiled> {
  // BENCH_PROFILE_DIR keeps the .cpuprofile files (for Chrome DevTools or speedscope); else a temp dir, removed after.
  const keep = process.env.BENCH_PROFILE_DIR;
  const profileDir = keep ? join(keep, `${model}-${mode}`) : mkdtempSync(join(tmpdir(), 'inkwell-bench-gateway-prof-'));
  mkdirSync(profileDir, { recursive: true });
  try {
    const server = await startInkwell({ cpu: SERVER_CPU, upstreamUrl, pacedUrl: upstreamUrl, maxConcurrency: CONNECTIONS, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', profileDir] });
    let row: Row;
    try {
      row = await measure(inkwellTarget(server, model, mode), CONNECTIONS, DURATION_S);
    } finally {
      await server.stop(); // SIGTERM: the server exits normally and writes its profile
    }
    const files = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile')).map((name) => join(profileDir, name));
    const times = selfTimes(files, ROOT, [row.window]);
    return { row, functions: times.functions, files: times.files, busyMs: times.totalMs };
  } finally {
    if (!keep) rmSync(profileDir, { recursive: true, force: true });
  }
}

/**
 * `--profile`: the engine path and the sandbox path under `--cpu-prof`, each mode in a server of
 * its own; the engine path's top self-time functions and files, and where its extra time per
 * request goes (engine minus sandbox, per request, by file or package).
 */
async function profileRun(model: string, modes: Mode[]): Promise<void> {
  const upstream = await startFakeUpstream(() => ({ kind: 'stream', content: ANSWER_SVG, chunks: CHUNKS, usage: USAGE }));
  const perRequest = (entry: SelfTime | undefined, row: Row) => ((entry?.ms ?? 0) * 1000) / row.served;
  try {
    for (const mode of modes) {
      const main = await profileOne(upstream.url, model, mode);
      const base = model === 'sandbox-fixed' ? undefined : await profileOne(upstream.url, 'sandbox-fixed', mode);
      const { row } = main;
      console.log(`\n### Profile: ${model}, ${mode === 'json' ? 'non-streaming' : 'streaming'}, ${CONNECTIONS} connections, ${DURATION_S} s after ${WARMUP_S} s warm-up`);
      for (const p of [main, base]) {
        if (!p) continue;
        console.log(
          `\n${p.row.target.label}: ${fmt(p.row.rps, 0)} req/s, ${p.row.served} served, ${p.row.bad} bad; server ${fmt(p.row.serverMsPerRequest)} ms + workers ${fmt(p.row.childrenMsPerRequest)} ms CPU per request ` +
            `(profiler overhead included; workers not profiled); busy samples ${fmt(p.busyMs, 0)} ms = ${fmt((p.busyMs * 1000) / p.row.served, 0)} µs per request`,
        );
      }
      console.log(`\nTop 20 functions by self time, ${model}:\n`);
      console.log('| # | function | self ms | share | µs per request |');
      console.log('|---:|---|---:|---:|---:|');
      main.functions.slice(0, 20).forEach((entry, i) => console.log(`| ${i + 1} | \`${entry.name}\` | ${fmt(entry.ms, 0)} | ${fmt(entry.share * 100, 1)} % | ${fmt(perRequest(entry, row), 0)} |`));
      if (!base) continue;
      console.log(`\nBy file or package, µs per request: ${model} next to sandbox-fixed (largest differences first):\n`);
      console.log(`| file / package | ${model} | sandbox-fixed | difference |`);
      console.log('|---|---:|---:|---:|');
      const names = new Set([...main.files, ...base.files].map((entry) => entry.name));
      const diffs = [...names].map((name) => {
        const ours = perRequest(main.files.find((entry) => entry.name === name), row);
        const theirs = perRequest(base.files.find((entry) => entry.name === name), base.row);
        return { name, ours, theirs, diff: ours - theirs };
      });
      diffs.sort((x, y) => y.diff - x.diff).slice(0, 20).forEach((d) => console.log(`| \`${d.name}\` | ${fmt(d.ours, 0)} | ${fmt(d.theirs, 0)} | ${fmt(d.diff, 0)} |`));
    }
  } finally {
    await upstream.close();
  }
}

async function main(): Promise<number> {
  if (flags.profile) {
    const mode = flags['profile-mode'];
    if (!['json', 'stream', 'both'].includes(mode) || !['up-fixed', 'sandbox-fixed'].includes(flags['profile-model'])) {
      console.error('bench:gateway: --profile-model is up-fixed or sandbox-fixed, --profile-mode json, stream or both');
      return 2;
    }
    await profileRun(flags['profile-model'], mode === 'both' ? ['json', 'stream'] : [mode as Mode]);
    return 0;
  }
  const markChunk = firstElementChunk();
  const upstream = await startFakeUpstream(() => ({ kind: 'stream', content: ANSWER_SVG, chunks: CHUNKS, usage: USAGE }));
  const paced = await startPacedUpstream(PIECES, markChunk, DRAFT_GAP_MS, USAGE);
  const server = await startInkwell({ cpu: SERVER_CPU, upstreamUrl: upstream.url, pacedUrl: paced.url, maxConcurrency: CONNECTIONS });
  try {
    const targets: Target[] = [];
    for (const mode of ['json', 'stream'] as const) {
      targets.push(upstreamTarget(upstream.url, mode), inkwellTarget(server, 'up-fixed', mode), inkwellTarget(server, 'sandbox-fixed', mode));
    }
    const rows: Row[] = [];
    for (const target of targets) rows.push(await measure(target, CONNECTIONS, DURATION_S));
    const single: Row[] = [];
    for (const target of targets) single.push(await measure(target, 1, P50_DURATION_S));
    const drafts = await draftLatencies(server, paced.markedAt);
    const workers = sampleCpu(server.pid).children;

    const find = (list: Row[], label: string, mode: Mode) => list.find((row) => row.target.label.startsWith(label) && row.target.mode === mode)!;
    const cpu = (row: Row) => (row.serverMsPerRequest ?? NaN) + (row.childrenMsPerRequest ?? 0);
    const delta = (mode: Mode) => cpu(find(rows, 'Inkwell → up-fixed', mode)) - cpu(find(rows, 'Inkwell → sandbox-fixed', mode));
    const added = (mode: Mode) => find(single, 'Inkwell → up-fixed', mode).p50 - find(single, 'upstream', mode).p50;
    const draftMedian = median(drafts.latencies);
    const badTotal = [...rows, ...single].reduce((sum, row) => sum + row.bad, 0) + drafts.bad;

    console.log(`\nGateway benchmark — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, server pinned to core ${SERVER_CPU} (workers inherit it), load generator + upstream on core ${allowedCpus()}`);
    console.log(`Source: ${sourceState()}`);
    console.log(`Answer: ${Buffer.byteLength(ANSWER_SVG)}-byte SVG, ${CHUNKS} chunks when streamed; ${CONNECTIONS} connections, ${DURATION_S} s per target after ${WARMUP_S} s warm-up\n`);
    console.log('| target | mode | req/s | p50 ms | p99 ms | served | bad | server CPU ms/req | of which workers | client core % | other load % |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of rows) {
      console.log(
        `| ${row.target.label} | ${row.target.mode} | ${fmt(row.rps, 0)} | ${fmt(row.p50, 1)} | ${fmt(row.p99, 1)} | ${row.served} | ${row.bad} | ${row.serverMsPerRequest === undefined ? '—' : fmt(cpu(row), 3)} | ${fmt(row.childrenMsPerRequest, 3)} | ${fmt(row.clientCpuPercent, 0)} | ${fmt(row.otherCpuPercent, 0)} |`,
      );
    }
    console.log(`\nOne connection, ${P50_DURATION_S} s per target:\n`);
    console.log('| target | mode | req/s | p50 ms | p99 ms | bad | added p50 ms (vs upstream direct, same mode) | server CPU ms/req | other load % |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of single) {
      const base = find(single, 'upstream', row.target.mode);
      const inkwell = row.target.serverPid !== undefined;
      console.log(
        `| ${row.target.label} | ${row.target.mode} | ${fmt(row.rps, 0)} | ${fmt(row.p50, 3)} | ${fmt(row.p99, 3)} | ${row.bad} | ${inkwell ? fmt(row.p50 - base.p50, 3) : '—'} | ${inkwell ? fmt(cpu(row), 3) : '—'} | ${fmt(row.otherCpuPercent, 0)} |`,
      );
    }
    console.log(
      `\nFirst draft: upstream chunk ${markChunk + 1}/${CHUNKS} completes the first drawable element, chunks ${DRAFT_GAP_MS} ms apart; ` +
        `${drafts.latencies.length} requests: median ${fmt(draftMedian)} ms, min ${fmt(Math.min(...drafts.latencies))}, max ${fmt(Math.max(...drafts.latencies))} ms` +
        (drafts.bad ? `, ${drafts.bad} failed` : ''),
    );
    console.log(`Server child processes at the end: ${workers.map((w) => `${w.pid} (${w.comm})`).join(', ') || 'none'}`);
    const names = (row: Row) => Object.entries(row.childrenByName ?? {}).map(([name, ms]) => `${name} ${fmt(ms, 3)}`).join(', ') || 'none';
    for (const row of [...rows, ...single]) {
      if (row.childrenStarted?.length) console.log(`WARNING: ${row.target.label} (${row.target.mode}, ${rows.includes(row) ? CONNECTIONS : 1} connection(s)): child processes started inside the window: ${row.childrenStarted.join(', ')}`);
    }
    console.log(`Child CPU by process name, ms/request: ${rows.filter((row) => row.target.serverPid).map((row) => `${row.target.label.replace('Inkwell → ', '')} ${row.target.mode}: ${names(row)}`).join('; ')}`);

    const checks: Array<[boolean, string]> = [
      [delta('json') <= TARGETS.nonStreamingMs, `non-streaming: up-fixed costs ${fmt(delta('json'), 3)} ms CPU/request more than sandbox-fixed (target ≤ ${TARGETS.nonStreamingMs})`],
      [delta('stream') <= TARGETS.streamingMs, `streaming: up-fixed costs ${fmt(delta('stream'), 3)} ms CPU/request more than sandbox-fixed (target ≤ ${TARGETS.streamingMs})`],
      ...(['json', 'stream'] as const).map((mode): [boolean, string] => {
        const ms = cpu(find(rows, 'Inkwell → up-fixed', mode));
        return [ms <= ABSOLUTE_TARGETS[mode], `${mode === 'json' ? 'non-streaming' : 'streaming'}: up-fixed costs ${fmt(ms, 3)} ms CPU/request in all (target ≤ ${ABSOLUTE_TARGETS[mode]})`];
      }),
      [draftMedian <= TARGETS.firstDraftMs, `first draft ${fmt(draftMedian)} ms after the upstream's first complete element (median; target ≤ ${TARGETS.firstDraftMs})`],
    ];
    console.log(`\nAdded p50 at one connection: non-streaming ${fmt(added('json'), 3)} ms, streaming ${fmt(added('stream'), 3)} ms\n`);
    for (const [ok, text] of checks) console.log(`- ${ok ? 'PASS' : 'FAIL'} ${text}`);
    if (badTotal > 0) {
      console.log(`\nINVALID RUN: ${badTotal} responses were not a 200 with the finished SVG`);
      return 1;
    }
    return flags.check && !checks.every(([ok]) => ok) ? 1 : 0;
  } finally {
    await server.stop();
    await paced.close();
    await upstream.close();
  }
}

process.exitCode = await main();
