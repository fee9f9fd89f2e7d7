// A server stand-in for the WorkerPool tests: starts a worker, prints its pid, and waits to be killed.
import { WorkerPool } from '../../src/workers/pool.ts';

const pool = new WorkerPool<{ echo: { task: null; progress: never; result: { pid: number } } }>({
  entry: new URL('./fixture-worker.mjs', import.meta.url),
  workers: 1,
  queue: 1,
  timeoutMs: 60_000,
});
const { pid } = await pool.run('echo', null, new AbortController().signal);
process.stdout.write(`${pid}\n`);
setInterval(() => undefined, 60_000);
