/**
 * Where the hot path's CPU goes: `inkwell serve` under --cpu-prof (pinned to core 0), loaded with
 * one target of cpu.ts, then the top functions and files by self time over the measured window.
 * Usage: node --import tsx bench/ledger/profile-hot.ts [test|live|models] [--postgres]   (BENCH_DURATION s, 6)
 * --postgres: on a temporary database of DATABASE_URL's server and REDIS_URL's Redis (see cpu.ts).
 */
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testKeyOf } from '../cpu-window.ts';
import { pinSelf } from '../gateway/proc.ts';
import { nowMicros, selfTimes } from '../gateway/profile.ts';
import { startInkwell } from '../gateway/server.ts';
import { temporaryDatabase } from './temporary-database.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 6);
const target = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'test';
// BENCH_PROFILE_DIR keeps the .cpuprofile files (for Chrome DevTools, speedscope or a call-tree reading).
const keep = process.env.BENCH_PROFILE_DIR;
if (keep) mkdirSync(keep, { recursive: true });
const profileDir = keep ?? mkdtempSync(join(tmpdir(), 'inkwell-profile-'));

pinSelf(1);
const postgres = process.argv.includes('--postgres') ? await temporaryDatabase() : undefined;
const server = await startInkwell({
  cpu: 0,
  upstreamUrl: 'http://127.0.0.1:9/v1',
  pacedUrl: 'http://127.0.0.1:9/v1',
  maxConcurrency: 32,
  nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
  env: postgres ? { DATABASE_URL: postgres.url, REDIS_URL: process.env.REDIS_URL! } : undefined,
});
let window: [number, number];
let served = 0;
try {
  const testKey = await testKeyOf(server, postgres?.url);
  const generation = (key: string) => ({
    url: `${server.url}/v1/svgs/generations`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sandbox-fixed', prompt: 'a dot' }),
  });
  const options =
    target === 'models'
      ? { url: `${server.url}/v1/models`, headers: { authorization: `Bearer ${server.liveKey}` } }
      : generation(target === 'live' ? server.liveKey : testKey);
  await autocannon({ ...options, connections: 32, duration: 2 });
  const from = nowMicros();
  const result = await autocannon({ ...options, connections: 32, duration: DURATION_S });
  window = [from, nowMicros()];
  served = result['2xx'] as number;
} finally {
  await server.stop();
  await postgres?.drop();
}
const files = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile')).map((name) => join(profileDir, name));
const { functions, files: byFile, totalMs } = selfTimes(files, process.cwd(), [window!]);
const perRequest = (ms: number) => ((ms * 1000) / served).toFixed(1);
console.log(`${target}: ${served} requests, ${perRequest(totalMs)} µs busy per request (profiled)\n`);
console.log('| self µs/req | function |');
console.log('|---:|---|');
for (const entry of functions.slice(0, 30)) console.log(`| ${perRequest(entry.ms)} | ${entry.name} |`);
console.log('\n| self µs/req | file or package |');
console.log('|---:|---|');
for (const entry of byFile.slice(0, 25)) console.log(`| ${perRequest(entry.ms)} | ${entry.name} |`);
