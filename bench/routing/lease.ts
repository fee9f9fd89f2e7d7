/**
 * What routing costs a call on its own: UpstreamSet.lease + end, in process, for entries of 1, 2,
 * 4 and 8 upstreams, with 16 calls held at once (so the choice weighs in-flight counts) and with
 * one at a time. The HTTP side-by-side (bench/README.md, Routing) cannot resolve a cost this
 * small; this can. It times the built modules (dist/, `npm run build` first), as the server
 * runs them: under tsx, every closure made at run time also pays for a name helper. With
 * --baseline=DIR (a built checkout before routing, e.g. a worktree of 5394d7d) the limiter that
 * came before it (ConcurrencyLimit acquire + release) is timed the same way beside it.
 * Usage: npm run build && taskset -c 0 node --import tsx bench/routing/lease.ts [--baseline=DIR]
 */
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Lease, UpstreamMember, UpstreamSet as UpstreamSetClass } from '../../src/engines/upstream/routing/upstream-set.ts';
import type { UpstreamClient } from '../../src/engines/upstream/client.ts';
import type { UpstreamLog as UpstreamLogClass } from '../../src/engines/upstream/log.ts';

const { values: flags } = parseArgs({ options: { baseline: { type: 'string' } } });
const built = (checkout: string, module: string) => import(pathToFileURL(join(resolve(checkout), 'dist/engines/openai-compatible', module)).href);
const { UpstreamSet } = (await built(join(import.meta.dirname, '../..'), 'routing/upstream-set.js')) as { UpstreamSet: typeof UpstreamSetClass };
const { UpstreamLog } = (await built(join(import.meta.dirname, '../..'), 'upstream-log.js')) as { UpstreamLog: typeof UpstreamLogClass };

const CALLS = 2_000_000;
const OK = { kind: 'ok' } as const;

function setOf(size: number): UpstreamSetClass {
  const members: UpstreamMember[] = Array.from({ length: size }, (_, i) => ({
    name: `u${i}`,
    model: 'm',
    client: {} as UpstreamClient,
    log: new UpstreamLog(undefined, 'bench', `http://u${i}`),
    weight: 1 + (i % 3),
    maxConcurrency: 64,
  }));
  return new UpstreamSet('bench', members, { failureThreshold: 3, ejectionMs: 10_000, maxEjectionMs: 300_000, ejects: size > 1 });
}

async function nsPerCall(size: number, held: number): Promise<number> {
  const set = setOf(size);
  const signal = new AbortController().signal;
  const ring: Lease[] = [];
  for (let i = 0; i < held; i++) ring.push(await set.lease(signal));
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const slot = i % held;
    ring[slot]!.end(OK);
    ring[slot] = await set.lease(signal);
  }
  const ns = ((performance.now() - started) * 1e6) / CALLS;
  for (const lease of ring) lease.end(OK);
  return ns;
}

interface Limiter {
  acquire(signal: AbortSignal): Promise<() => void>;
}

/** The limiter before routing: acquire + release, the same cycles. */
async function nsPerBaselineCall(Limit: new (limit: number) => Limiter, held: number): Promise<number> {
  const limit = new Limit(64);
  const signal = new AbortController().signal;
  const ring: (() => void)[] = [];
  for (let i = 0; i < held; i++) ring.push(await limit.acquire(signal));
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const slot = i % held;
    ring[slot]!();
    ring[slot] = await limit.acquire(signal);
  }
  const ns = ((performance.now() - started) * 1e6) / CALLS;
  for (const release of ring) release();
  return ns;
}

async function median(measure: () => Promise<number>): Promise<string> {
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) runs.push(await measure());
  return runs.sort((a, b) => a - b)[2]!.toFixed(0);
}

console.log('upstreams  held  ns per call (median of 5)');
for (const held of [1, 16]) {
  if (flags.baseline) {
    const module = (await built(flags.baseline, 'concurrency.js')) as { ConcurrencyLimit: new (limit: number) => Limiter };
    console.log(`   before  ${String(held).padStart(4)}  ${await median(() => nsPerBaselineCall(module.ConcurrencyLimit, held))}`);
  }
  for (const size of [1, 2, 4, 8]) console.log(`${String(size).padStart(9)}  ${String(held).padStart(4)}  ${await median(() => nsPerCall(size, held))}`);
}
