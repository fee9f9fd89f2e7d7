import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import workerpool from 'workerpool';
import type { Task, TaskQueue } from 'workerpool/types/types.js';
import { ApiError } from '../../contract/errors.ts';
import type { TraceOutcome, TraceTask } from './job.ts';

export interface TracePoolOptions {
  /** Worker processes; 0 = one per CPU core. */
  workers: number;
  /** Jobs that may wait for a worker; 0 = four per worker. */
  queue: number;
  /** Longest a job may run from when it is sent to a worker (a new one's start-up included); beyond it the worker is killed. */
  timeout_ms: number;
}

/** What a worker reports while it runs a job (before the result). */
export type TraceProgress = 'accepted';

/** How long a worker stuck in native code gets to exit before it is killed. */
const KILL_AFTER_MS = 200;

/** workerpool's promises carry `pending` (its types declare a plain Promise). */
const isPending = (task: Task) => (task.resolver.promise as unknown as { pending: boolean }).pending;

/**
 * The waiting jobs, first in first out, counting only jobs still wanted: a job whose client
 * left stays in workerpool's own queue until a worker frees up, and would hold a queue slot
 * (and cause 503s for others) until then.
 */
class LiveJobQueue implements TaskQueue {
  private tasks: Task[] = [];

  push(task: Task): void {
    this.tasks.push(task);
  }

  pop(): Task | undefined {
    this.prune();
    return this.tasks.shift();
  }

  size(): number {
    this.prune();
    return this.tasks.length;
  }

  contains(task: Task): boolean {
    return this.tasks.includes(task);
  }

  clear(): void {
    this.tasks.length = 0;
  }

  private prune(): void {
    if (this.tasks.some((task) => !isPending(task))) this.tasks = this.tasks.filter(isPending);
  }
}

/**
 * The processes that decode and trace, so the event loop never does. They are processes, not
 * threads: VTracer, sharp and resvg run native code that a thread cannot interrupt, and a
 * worker thread that is terminated leaves that code running; a process is killed, so a job
 * past its deadline (504) or whose client left stops using the CPU within KILL_AFTER_MS.
 * Workers start on first use and stay until close(). A job that finds the queue full is refused at once with 503 and a Retry-After
 * estimated from recent job times.
 */
export class TracePool {
  private pool: workerpool.Pool | undefined;
  private readonly workers: number;
  private readonly queue: number;
  private readonly timeoutMs: number;
  /** Moving average of a job's run time, for Retry-After. */
  private averageMs = 500;

  constructor(options: TracePoolOptions) {
    this.workers = options.workers || availableParallelism();
    this.queue = options.queue || this.workers * 4;
    this.timeoutMs = options.timeout_ms;
  }

  async run(task: TraceTask, signal: AbortSignal, onProgress?: (progress: TraceProgress) => void): Promise<TraceOutcome> {
    try {
      return await this.runOnce(task, signal, onProgress);
    } catch (error) {
      // A worker that died while idle (killed from outside) fails the first job sent to it
      // before the job starts; that job is safe to send once more.
      if (error instanceof ApiError && error.cause instanceof Error && /worker is terminated/i.test(error.cause.message)) {
        return this.runOnce(task, signal, onProgress);
      }
      throw error;
    }
  }

  private async runOnce(task: TraceTask, signal: AbortSignal, onProgress?: (progress: TraceProgress) => void): Promise<TraceOutcome> {
    signal.throwIfAborted();
    this.pool ??= workerpool.pool(fileURLToPath(new URL('./worker-entry.mjs', import.meta.url)), {
      workerType: 'process',
      maxWorkers: this.workers,
      maxQueueSize: this.queue,
      queueStrategy: new LiveJobQueue(),
      workerTerminateTimeout: KILL_AFTER_MS,
      // Buffers cross as bytes (structured clone), not as JSON arrays of numbers. Detached: a
      // Ctrl-C in the terminal reaches the server, which stops the workers itself (they also
      // exit when the server's IPC channel closes).
      forkOpts: { serialization: 'advanced', execArgv: [], detached: true },
    });
    this.assertCapacity();
    const started = performance.now();
    let job;
    try {
      job = this.pool.exec('trace', [task], { on: onProgress }).timeout(this.timeoutMs);
    } catch (error) {
      if (error instanceof Error && /max queue size/i.test(error.message)) throw this.busy();
      throw error;
    }
    // A block body: a listener that returns the (rejected) job would have EventTarget rethrow it.
    const cancel = () => {
      job.cancel();
    };
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const outcome = (await job) as TraceOutcome;
      this.averageMs = this.averageMs * 0.8 + (performance.now() - started) * 0.2;
      return outcome;
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      if (error instanceof workerpool.Promise.TimeoutError) {
        throw new ApiError('request_timeout', {
          message: `The tracer gave up on this image after ${this.timeoutMs / 1000} s; a lower reasoning_effort or a smaller image traces faster.`,
        });
      }
      // workerpool waits for a crashed worker's exit (already past) before it hands out the next
      // queued job, which would leave the queue stuck; this moves it on.
      setImmediate(() => (this.pool as unknown as { _next?: () => void } | undefined)?._next?.());
      throw new ApiError('model_error', { message: 'The tracer failed on this image.', cause: error });
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /** Refuses with 503 when the queue is full: called before an input is fetched, and again on run. */
  assertCapacity(): void {
    if (this.pool && this.pool.stats().pendingTasks >= this.queue) throw this.busy();
  }

  private busy(): ApiError {
    const waitSeconds = Math.ceil(((this.queue / this.workers) * this.averageMs) / 1000);
    return new ApiError('model_unavailable', {
      message: 'The tracer is at capacity; retry after the indicated time.',
      retryAfter: Math.max(1, waitSeconds),
    });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    // A worker that already died never reports its exit again; do not wait for it for ever.
    await pool?.terminate(true, 2_000).catch(() => undefined);
  }
}
