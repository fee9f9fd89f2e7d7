/**
 * Tracer latency benchmark: how much a small icon's vectorization costs beyond the tracer's own
 * work. For each sample icon it times, in turns and as medians after a warm-up:
 *   (a) in-process: the tracer task run in this process (decode + trace: what a worker does);
 *   (b) pool: the same task through the tracer's worker pool, worker warm;
 *   (c) API: POST /v1/svgs/vectorizations on an in-process server with a live key;
 * then the parts that make up the difference (the pool's bare round trip, the main process's
 * image checks, base64, decode, trace), and the first job of a new pool with and without a
 * prestarted worker. Usage:
 *   node --import tsx bench/trace-latency/run.ts [--runs=N] [--warmup=N] [--sides=64,256] [--no-api] [--check]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { TraceTask } from '../../src/engines/trace/job.ts';
import { TracePool } from '../../src/engines/trace/pool.ts';
import { decodeRgba } from '../../src/engines/trace/raster.ts';
import { traceImage } from '../../src/engines/trace/tracer.ts';
import runTraceTask from '../../src/engines/trace/worker.ts';
import { checkImageBytes } from '../../src/media/image.ts';
import { WorkerPool } from '../../src/workers/pool.ts';
import { sampleIcons, type Sample } from './icons.ts';
import { startTraceServer } from './server.ts';
import { interleavedMedians, median, medianMs } from './timing.ts';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '30' },
    sides: { type: 'string', default: '64,256' },
    'no-api': { type: 'boolean', default: false },
    check: { type: 'boolean', default: false }, // exit 1 when (b)/(a) of a 64×64 icon is above 1.5
  },
});
const runs = Number(flags.runs);
const warmup = Number(flags.warmup);
const sides = flags.sides.split(',').map(Number);
if (!(runs >= 1 && warmup >= 0 && sides.every((side) => side >= 8))) {
  console.error('bench:trace-latency: --runs ≥ 1, --warmup ≥ 0, --sides a list of sides ≥ 8');
  process.exit(2);
}
/** The bound on (b)/(a) for a 64×64 icon that --check holds the tracer to. */
const TARGET_RATIO = 1.5;
const EFFORT = 'medium';

type EchoJobs = { echo: { task: { payload?: Uint8Array; reply: string; progress: boolean }; progress: 'accepted'; result: string } };

const signal = new AbortController().signal;
const ms = (value: number) => value.toFixed(2);
const ratio = (value: number) => `${value.toFixed(2)}×`;

async function main(): Promise<void> {
  const samples = await sampleIcons(sides);
  const tracePool = new TracePool({ workers: 1, queue: 4, timeout_ms: 60_000 });
  const echoPool = new WorkerPool<EchoJobs>({ entry: new URL('./echo-entry.mjs', import.meta.url), workers: 1, queue: 4, timeoutMs: 60_000 });
  const server = flags['no-api'] ? undefined : await startTraceServer();
  const loadBefore = loadavg();
  const started = performance.now();
  const headline: string[] = [];
  const parts: string[] = [];
  let worst64 = 0;
  try {
    for (const sample of samples) {
      const sampleRuns = sample.side <= 64 ? runs : Math.max(20, Math.round(runs / 4));
      const task: TraceTask = { input: { kind: 'raster', bytes: sample.png }, autoCrop: false, effort: EFFORT };
      const body = JSON.stringify({ model: 'inkwell-trace', image: { base64: sample.png.toString('base64') } });
      const api = server && (() => callApi(server.url, server.liveKey, body));
      const contenders = {
        inProcess: () => runTraceTask(task, () => undefined),
        pool: () => tracePool.run(task, signal),
        ...(api ? { api } : {}),
      };
      const times = await interleavedMedians(contenders as Record<string, () => Promise<unknown>>, sampleRuns, warmup);
      const a = times.inProcess!;
      const b = times.pool!;
      const c = times.api;
      if (sample.side === 64) worst64 = Math.max(worst64, b / a);
      headline.push(`| ${sample.name} | ${sample.side} | ${sample.path} | ${ms(a)} | ${ms(b)} | ${c === undefined ? '–' : ms(c)} | ${ratio(b / a)} | ${c === undefined ? '–' : ratio(c / a)} |`);
      parts.push(await breakdown(sample, task, echoPool, sampleRuns, b, c));
    }
  } finally {
    await Promise.all([tracePool.close(), echoPool.close(), server?.close()]);
  }
  const cold = await firstJobs(samples.find((sample) => sample.side === Math.min(...sides))!);
  const loadAfter = loadavg();
  console.log(`Tracer latency, effort ${EFFORT}, ${runs} timed runs per 64 px icon (a quarter for larger), ${warmup} warm-up; medians in ms.\n`);
  console.log('| icon | side | tracer path | (a) in-process | (b) pool | (c) API | (b)/(a) | (c)/(a) |');
  console.log('|---|---:|---|---:|---:|---:|---:|---:|');
  console.log(headline.join('\n'));
  console.log('\nWhere the time goes (each part timed alone, medians in ms):\n');
  console.log('| icon | side | PNG bytes | decode | trace | pool round trip, no work | (b) − round trip | base64 decode | main-process image check | (c) − (b) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(parts.join('\n'));
  console.log(`\nFirst job of a new pool (${cold.name}, ${cold.side} px), sent ${COLD_WAIT_MS / 1000} s after the pool was created, median of ${COLD_POOLS} pools, ms:\n`);
  console.log('| pool | first job | second job |');
  console.log('|---|---:|---:|');
  for (const row of cold.rows) console.log(`| ${row.label} | ${ms(row.first)} | ${ms(row.second)} |`);
  const fmt = (load: number[]) => load.map((value) => value.toFixed(2)).join(' ');
  console.log(`\nLoad average before: ${fmt(loadBefore)}; after: ${fmt(loadAfter)}; ${((performance.now() - started) / 1000).toFixed(0)} s.`);
  if (sides.includes(64)) {
    const pass = worst64 <= TARGET_RATIO;
    console.log(`${pass ? 'PASS' : 'FAIL'} worst (b)/(a) of a 64×64 icon ${ratio(worst64)} (target ≤ ${TARGET_RATIO}×)`);
    if (flags.check && !pass) process.exitCode = 1;
  }
}

/** How long a new pool is left alone before its first job (a server's start, then a first request). */
const COLD_WAIT_MS = 3_000;
const COLD_POOLS = 3;

/** The first two jobs of new pools: workers started on first use, or one started with the pool. */
async function firstJobs(sample: Sample): Promise<{ name: string; side: number; rows: { label: string; first: number; second: number }[] }> {
  const task: TraceTask = { input: { kind: 'raster', bytes: sample.png }, autoCrop: false, effort: EFFORT };
  const rows = [];
  for (const [label, prestart] of [['worker started on first use', 0], ['one worker started with the pool', 1]] as const) {
    const first: number[] = [];
    const second: number[] = [];
    for (let i = 0; i < COLD_POOLS; i++) {
      const pool = new TracePool({ workers: 1, queue: 4, timeout_ms: 60_000, prestart });
      try {
        await new Promise((resolve) => setTimeout(resolve, COLD_WAIT_MS));
        for (const times of [first, second]) {
          const start = performance.now();
          await pool.run(task, signal);
          times.push(performance.now() - start);
        }
      } finally {
        await pool.close();
      }
    }
    rows.push({ label, first: median(first), second: median(second) });
  }
  return { name: sample.name, side: sample.side, rows };
}

async function callApi(url: string, key: string, body: string): Promise<void> {
  const response = await fetch(`${url}/v1/svgs/vectorizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`vectorization answered ${response.status}: ${text}`);
}

/** One row of the breakdown: each part of the work timed alone. */
async function breakdown(sample: Sample, task: TraceTask, echoPool: WorkerPool<EchoJobs>, sampleRuns: number, poolMs: number, apiMs: number | undefined): Promise<string> {
  const image = await decodeRgba(sample.png);
  const { svg } = await traceImage(image, { effort: EFFORT });
  const base64 = sample.png.toString('base64');
  // The same messages as a trace job (the task's bytes out; started, accepted and the SVG back).
  const echo = { payload: (task.input as { bytes: Uint8Array }).bytes, reply: svg, progress: true };
  const roundTrip = await medianMs(() => echoPool.run('echo', echo, signal), sampleRuns, warmup);
  const decode = await medianMs(() => decodeRgba(sample.png), sampleRuns, warmup);
  const trace = await medianMs(() => traceImage(image, { effort: EFFORT }), sampleRuns, warmup);
  const fromBase64 = await medianMs(() => Buffer.from(base64, 'base64'), sampleRuns, warmup);
  const check = await medianMs(() => checkImageBytes(sample.png, 'image.base64'), sampleRuns, warmup);
  const apiOwn = apiMs === undefined ? '–' : ms(apiMs - poolMs);
  return `| ${sample.name} | ${sample.side} | ${sample.png.length} | ${ms(decode)} | ${ms(trace)} | ${ms(roundTrip)} | ${ms(poolMs - roundTrip)} | ${ms(fromBase64)} | ${ms(check)} | ${apiOwn} |`;
}

await main();
