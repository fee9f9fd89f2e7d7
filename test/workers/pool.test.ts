import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { JobFailedError, JobTimeoutError, PoolClosedError, PoolFullError, WorkerExitedError, WorkerPool, type WorkerPoolOptions } from '../../src/workers/pool.ts';
import { isAlive, waitFor } from '../helpers/processes.ts';

/** The job kinds of fixture-worker.mjs. */
type TestJobs = {
  echo: { task: unknown; progress: never; result: { pid: number; task: unknown; type: string | null } };
  sleep: { task: number; progress: never; result: number };
  spin: { task: number; progress: never; result: number };
  progress: { task: { values: string[]; spinAfter?: number }; progress: string; result: string };
  exit: { task: number; progress: never; result: never };
  throw: { task: string; progress: never; result: never };
};

const ENTRY = new URL('./fixture-worker.mjs', import.meta.url);
const pools: WorkerPool<TestJobs>[] = [];
after(() => Promise.all(pools.map((pool) => pool.close())));

function newPool(options: Partial<WorkerPoolOptions> = {}): WorkerPool<TestJobs> {
  const pool = new WorkerPool<TestJobs>({ entry: ENTRY, workers: 1, queue: 2, timeoutMs: 60_000, ...options });
  pools.push(pool);
  return pool;
}

/** The pool's live worker processes (its private bookkeeping, read for the test only). */
function pids(pool: WorkerPool<TestJobs>): number[] {
  return (pool as unknown as { workers: { worker: { pid?: number } }[] }).workers.flatMap((slot) => (slot.worker.pid ? [slot.worker.pid] : []));
}

const signal = () => new AbortController().signal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the worker pool', () => {
  it('starts no process before the first job, then runs jobs of several kinds in one process it keeps', async () => {
    const pool = newPool();
    assert.deepEqual(pids(pool), []);
    const first = await pool.run('echo', { a: 1 }, signal());
    assert.notEqual(first.pid, process.pid);
    assert.deepEqual(first.task, { a: 1 });
    assert.equal(await pool.run('sleep', 1, signal()), first.pid);
    assert.equal(await pool.run('spin', 1, signal()), first.pid);
    assert.deepEqual(pids(pool), [first.pid]);
  });

  it('with prestart, starts that many processes with the pool (at most `workers`) and runs the first job in one of them', async () => {
    const pool = newPool({ workers: 2, queue: 2, prestart: 3 });
    const started = pids(pool);
    assert.equal(started.length, 2);
    const { pid } = await pool.run('echo', null, signal());
    assert.ok(started.includes(pid));
    assert.deepEqual(pids(pool), started);
  });

  it('passes bytes as bytes (structured clone), not as JSON', async () => {
    const pool = newPool();
    const bytes = new Uint8Array(1 << 20).fill(7);
    const { task, type } = await pool.run('echo', bytes, signal());
    assert.equal(type, 'Uint8Array');
    assert.ok(task instanceof Uint8Array);
    assert.equal(task.byteLength, 1 << 20);
    assert.equal(task[12345], 7);
  });

  it('runs at most `workers` processes at once, and the rest of the jobs in turn', async () => {
    const pool = newPool({ workers: 2, queue: 10 });
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, pids(pool).length)), 5);
    try {
      const results = await Promise.all(Array.from({ length: 8 }, () => pool.run('sleep', 100, signal())));
      assert.ok(new Set(results).size <= 2, `pids ${results}`);
      assert.ok(most <= 2, `${most} processes at once`);
    } finally {
      clearInterval(watch);
    }
  });

  it('refuses a job at once when the queue is full, with a wait estimated from recent job times', async () => {
    const pool = newPool({ workers: 1, queue: 2 });
    for (let i = 0; i < 12; i++) await pool.run('echo', i, signal()); // quick jobs bring the average down
    const running = [pool.run('sleep', 300, signal()), pool.run('sleep', 1, signal()), pool.run('sleep', 1, signal())];
    const started = performance.now();
    await assert.rejects(pool.run('echo', null, signal()), (error) => error instanceof PoolFullError && error.retryAfterMs > 0 && error.retryAfterMs < 250);
    assert.throws(() => pool.assertCapacity(), PoolFullError);
    assert.ok(performance.now() - started < 200, 'refused without waiting');
    await Promise.all(running);
    pool.assertCapacity();
  });

  it('kills a job past its deadline within half a second, and serves the next job with a new process', async () => {
    const pool = newPool({ timeoutMs: 1500 });
    const { pid } = await pool.run('echo', null, signal()); // started, so the deadline covers the job alone
    const started = performance.now();
    await assert.rejects(pool.run('spin', 30_000, signal()), (error) => error instanceof JobTimeoutError && error.timeoutMs === 1500);
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 1490 && elapsed < 2000, `${elapsed} ms`);
    const reaped = await waitFor(() => !isAlive(pid));
    assert.ok(reaped < 500, `reaped ${reaped} ms after the deadline`);
    const next = await pool.run('echo', null, signal());
    assert.notEqual(next.pid, pid);
  });

  it('counts the deadline from when a job is sent to a worker, not while it waits', async () => {
    const pool = newPool({ timeoutMs: 1500 });
    await pool.run('echo', null, signal());
    // Each runs 1 s; the second is done 2 s after it was queued.
    const results = await Promise.all([pool.run('sleep', 1000, signal()), pool.run('sleep', 1000, signal())]);
    assert.equal(new Set(results).size, 1);
  });

  it('frees the queue place of a job whose caller left, at once, with the signal reason', async () => {
    const pool = newPool({ queue: 1 });
    const busy = pool.run('sleep', 400, signal());
    const leaving = new AbortController();
    const queued = pool.run('echo', 'left', leaving.signal);
    assert.throws(() => pool.assertCapacity(), PoolFullError);
    const reason = new Error('client went away');
    leaving.abort(reason);
    await assert.rejects(queued, (error) => error === reason);
    pool.assertCapacity();
    const next = pool.run('echo', 'next', signal());
    await busy;
    assert.equal((await next).task, 'next');
  });

  it('refuses a job whose signal has already aborted, without starting a process', async () => {
    const pool = newPool();
    const controller = new AbortController();
    controller.abort(new Error('gone already'));
    await assert.rejects(pool.run('echo', null, controller.signal), /gone already/);
    assert.deepEqual(pids(pool), []);
  });

  it('kills the process of a running job whose caller left', async () => {
    const pool = newPool();
    const leaving = new AbortController();
    let pid = 0;
    const started = performance.now();
    const running = pool.run('progress', { values: ['accepted'], spinAfter: 30_000 }, leaving.signal, () => {
      pid = pids(pool)[0]!;
      leaving.abort(new Error('client went away'));
    });
    await assert.rejects(running, /client went away/);
    assert.ok(pid > 0);
    await waitFor(() => !isAlive(pid), 500);
    assert.ok(performance.now() - started < 5000);
    assert.notEqual((await pool.run('echo', null, signal())).pid, pid);
  });

  it('with a grace period, answers a leaving caller at once and keeps the worker of a job that finishes within it', async () => {
    const pool = newPool({ abandonGraceMs: 2000 });
    const { pid } = await pool.run('echo', null, signal());
    const leaving = new AbortController();
    const running = pool.run('sleep', 300, leaving.signal);
    await sleep(50);
    leaving.abort(new Error('client went away'));
    await assert.rejects(running, /client went away/);
    // The next job waits for the abandoned one to finish, then runs in the same process.
    assert.equal((await pool.run('echo', null, signal())).pid, pid);
  });

  it('with a grace period, kills the worker of an abandoned job still running when it ends', async () => {
    const pool = newPool({ abandonGraceMs: 200 });
    const { pid } = await pool.run('echo', null, signal());
    const leaving = new AbortController();
    const running = pool.run('spin', 30_000, leaving.signal);
    await sleep(50);
    leaving.abort(new Error('client went away'));
    await assert.rejects(running, /client went away/);
    assert.ok(isAlive(pid), 'not killed before the grace period ends');
    await waitFor(() => !isAlive(pid), 2000);
    assert.notEqual((await pool.run('echo', null, signal())).pid, pid);
  });

  it('keeps a starting worker for the next job when the caller of the job it started for leaves', async () => {
    const pool = newPool();
    const leaving = new AbortController();
    const first = pool.run('echo', null, leaving.signal);
    const [pid] = pids(pool);
    leaving.abort(new Error('left during start-up'));
    await assert.rejects(first, /left during start-up/);
    assert.equal((await pool.run('echo', null, signal())).pid, pid);
  });

  it('reports progress in order, before the result', async () => {
    const pool = newPool();
    const seen: string[] = [];
    const result = await pool.run('progress', { values: ['accepted', 'half', 'almost'] }, signal(), (value) => seen.push(value));
    assert.equal(result, 'done');
    assert.deepEqual(seen, ['accepted', 'half', 'almost']);
  });

  it('fails only the job of a worker that crashes, and the queue moves on', async () => {
    const pool = newPool();
    const crashing = pool.run('exit', 9, signal());
    const queued = pool.run('echo', 'after', signal());
    await assert.rejects(crashing, (error) => error instanceof WorkerExitedError && error.exitCode === 9);
    assert.equal((await queued).task, 'after');
  });

  it('fails only the job of a worker killed from outside mid-job', async () => {
    const pool = newPool();
    const doomed = pool.run('progress', { values: ['accepted'], spinAfter: 30_000 }, signal(), () => {
      for (const pid of pids(pool)) process.kill(pid, 'SIGKILL');
    });
    const queued = pool.run('echo', 'after', signal());
    await assert.rejects(doomed, (error) => error instanceof WorkerExitedError && error.signalCode === 'SIGKILL');
    assert.equal((await queued).task, 'after');
  });

  it('resends once a job sent to a worker that had died idle', async () => {
    const pool = newPool();
    const { pid } = await pool.run('echo', null, signal());
    process.kill(pid, 'SIGKILL');
    // In the same tick: the pool has not seen the exit, so the job goes to the dead worker.
    const result = await pool.run('echo', 'resent', signal());
    assert.equal(result.task, 'resent');
    assert.notEqual(result.pid, pid);
  });

  it('fails a job after its second worker dies before starting it, instead of trying for ever', async () => {
    const pool = new WorkerPool<TestJobs>({ entry: new URL('./fixture-dies-at-start.mjs', import.meta.url), workers: 1, queue: 1, timeoutMs: 60_000 });
    pools.push(pool);
    await assert.rejects(pool.run('echo', null, signal()), (error) => error instanceof WorkerExitedError && error.exitCode === 3);
  });

  it('fails a job whose task or result cannot be cloned, and the worker serves on', async () => {
    const pool = newPool();
    const { pid } = await pool.run('echo', null, signal());
    await assert.rejects(pool.run('echo', { run: () => 1 }, signal()), /could not be cloned/);
    await assert.rejects(pool.run('echo', Symbol('x'), signal()), (error) => error instanceof Error);
    assert.equal((await pool.run('echo', 'next', signal())).pid, pid);
  });

  it("reports a handler's error, and the worker serves on", async () => {
    const pool = newPool();
    const { pid } = await pool.run('echo', null, signal());
    await assert.rejects(pool.run('throw', 'bad input', signal()), (error) => error instanceof JobFailedError && error.errorName === 'TypeError' && error.message === 'bad input');
    await assert.rejects(
      (pool as unknown as WorkerPool<{ nothing: { task: null; progress: never; result: never } }>).run('nothing', null, signal()),
      (error) => error instanceof JobFailedError && /no handler for jobs of kind 'nothing'/.test(error.message),
    );
    assert.equal((await pool.run('echo', null, signal())).pid, pid);
  });

  it('closes at once, failing its jobs and killing its workers, even a busy or a dead one', async () => {
    const pool = newPool({ workers: 2, queue: 2 });
    const jobs = [pool.run('spin', 30_000, signal()), pool.run('spin', 30_000, signal()), pool.run('echo', null, signal())];
    const outcomes = Promise.allSettled(jobs);
    await sleep(300);
    const workers = pids(pool);
    assert.equal(workers.length, 2);
    process.kill(workers[0]!, 'SIGKILL'); // dies under the pool, which has not seen it yet
    const started = performance.now();
    await pool.close();
    assert.ok(performance.now() - started < 1000, `${performance.now() - started} ms`);
    for (const outcome of await outcomes) assert.ok(outcome.status === 'rejected' && outcome.reason instanceof PoolClosedError);
    for (const pid of workers) assert.equal(isAlive(pid), false);
    assert.deepEqual(pids(pool), []);
    await assert.rejects(pool.run('echo', null, signal()), PoolClosedError);
  });

  it('runs workers in their own process group, and they exit when the server dies', { skip: !existsSync('/proc/self/stat') && 'needs /proc' }, async () => {
    const parent = spawn(process.execPath, ['--import', 'tsx', new URL('./fixture-parent.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
        parent.once('exit', () => reject(new Error('the parent exited')));
      });
      const worker = Number(line.trim());
      assert.ok(worker > 0 && isAlive(worker));
      const processGroup = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
      assert.notEqual(processGroup(worker), processGroup(parent.pid!));
      assert.equal(processGroup(worker), worker);
      parent.kill('SIGKILL');
      // Orphaned, it is reaped by whatever adopts it, if anything: a zombie counts as gone.
      const running = (pid: number) => isAlive(pid) && !/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      await waitFor(() => !running(worker));
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
