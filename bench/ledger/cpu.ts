/**
 * Server CPU per request on the hot path: `inkwell serve` pinned to core 0 (bench/gateway's
 * server helper), this process and autocannon on core 1; the server's CPU time over the window
 * (utime + stime, from /proc) divided by the 2xx responses in it. Targets: a test-key sandbox
 * generation, a live-key billed one (reserve + settle), and GET /v1/models.
 * Usage: node --import tsx bench/ledger/cpu.ts [--postgres]   (BENCH_DURATION s per target, 8)
 * --postgres: the server on a new database of DATABASE_URL's server (dropped after) and on
 * REDIS_URL's Redis (counters under the new organization's id), instead of SQLite.
 */
import { cpuWindow, testKeyOf, warmUp } from '../cpu-window.ts';
import { pinSelf, sampleCpu } from '../gateway/proc.ts';
import { startInkwell } from '../gateway/server.ts';
import { temporaryDatabase } from './temporary-database.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

pinSelf(1);
const postgres = process.argv.includes('--postgres') ? await temporaryDatabase() : undefined;
const server = await startInkwell({
  cpu: 0,
  upstreamUrl: 'http://127.0.0.1:9/v1',
  pacedUrl: 'http://127.0.0.1:9/v1',
  maxConcurrency: CONNECTIONS,
  env: postgres ? { DATABASE_URL: postgres.url, REDIS_URL: process.env.REDIS_URL! } : undefined,
});
try {
  const testKey = await testKeyOf(server, postgres?.url);
  const generation = (key: string) => ({
    url: `${server.url}/v1/svgs/generations`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sandbox-fixed', prompt: 'a dot' }),
  });
  const targets = [
    { name: 'test-key sandbox generation', target: 0.4, options: generation(testKey) },
    { name: 'live-key billed sandbox generation', target: 0.6, options: generation(server.liveKey) },
    { name: 'GET /v1/models', target: 0.1, options: { url: `${server.url}/v1/models`, headers: { authorization: `Bearer ${server.liveKey}` } } },
  ];
  // The server starts worker processes (the tracer's is prestarted): their start-up must not
  // fall inside the first window. Wait until the server and its children are idle.
  for (let tries = 0; tries < 40; tries++) {
    const before = sampleCpu(server.pid);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = sampleCpu(server.pid);
    if (after.serverMs + after.childrenMs - before.serverMs - before.childrenMs < 5) break;
  }
  console.log(`\nserver on core 0, load on core 1, ${CONNECTIONS} connections, ${DURATION_S} s per target, Node ${process.version}\n`);
  console.log('| target | req/s | server CPU ms/req | target ms | other load % |');
  console.log('|---|---:|---:|---:|---:|');
  // Every path warmed up (and compiled) before any is measured.
  for (const { options } of targets) await warmUp(options, CONNECTIONS, 2);
  for (const { name, target, options } of targets) {
    await warmUp(options, CONNECTIONS, 1);
    const window = await cpuWindow(server, options, CONNECTIONS, DURATION_S);
    console.log(`| ${name} | ${Math.round(window.requestsPerSecond)} | ${window.msPerRequest.toFixed(3)} | ${target} | ${window.otherLoadPercent.toFixed(0)} |`);
  }
} finally {
  await server.stop();
  await postgres?.drop();
}

