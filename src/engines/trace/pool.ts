import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import workerpool from 'workerpool';
import { ApiError } from '../../contract/errors.ts';
import type { TraceOutcome, TraceTask } from './job.ts';

export interface TracePoolOptions {
  /** Worker processes; 0 = one per CPU core. */
  workers: number;
  /** Jobs that may wait for a worker; 0 = four per worker. */
  queue: number;
  /** Longest a job may run once a worker has it; beyond it the worker is killed. */
  timeout_ms: number;
}

/** What a worker reports while it runs a job (before the result). */
export type TraceProgress = 'accepted';

/**
 * The processes that decode and trace, so the event loop never does. They are processes, not
 * threads: VTracer, sharp and resvg run native code that a thread cannot interrupt, and a
 * worker thread that is terminated leaves that code running; a process is killed, so a job
 * past its deadline (504) or whose client left stops using the CPU at once. Workers start on
 * first use. A job that finds the queue full is refused at once with 503 and a Retry-After
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
    signal.throwIfAborted();
    this.pool ??= workerpool.pool(fileURLToPath(new URL('./worker-entry.mjs', import.meta.url)), {
      workerType: 'process',
      maxWorkers: this.workers,
      maxQueueSize: this.queue,
      // Buffers cross as bytes (structured clone), not as JSON arrays of numbers.
      forkOpts: { serialization: 'advanced', execArgv: [] },
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
    await this.pool?.terminate(true);
    this.pool = undefined;
  }
}
