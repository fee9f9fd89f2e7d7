import { availableParallelism } from 'node:os';
import { ApiError } from '../../contract/errors.ts';
import { JobTimeoutError, PoolFullError, WorkerPool } from '../../workers/pool.ts';
import type { TraceOutcome, TraceTask } from './job.ts';

export interface TracePoolOptions {
  /** Worker processes; 0 = one per CPU core. */
  workers: number;
  /** Jobs that may wait for a worker; 0 = four per worker. */
  queue: number;
  /** Longest a job may run from when it is sent to a worker (a new one's start-up included); beyond it the worker is killed. */
  timeout_ms: number;
  /** Workers started with the pool, before any job (default PRESTART_WORKERS); more start on demand. */
  prestart?: number;
}

/**
 * One worker starts with the pool, so the first image does not wait for a process start (about
 * half a second, loading sharp and VTracer) and its round trip is the tracer's own time. It
 * costs an idle process (about 45 MB of private memory) for as long as the server runs; further
 * workers start only when jobs overlap.
 */
const PRESTART_WORKERS = 1;

/** What a worker reports while it runs a job (before the result). */
export type TraceProgress = 'accepted';

/** The job kinds the tracer's worker processes serve (worker-main.ts maps each to its handler). */
export type TraceJobs = {
  trace: { task: TraceTask; progress: TraceProgress; result: TraceOutcome };
};

/**
 * The tracer's worker processes (a WorkerPool, see src/workers/pool.ts), which decode and trace
 * so the event loop never does, with the pool's failures told in the API's terms: a full queue
 * is 503 model_unavailable with a Retry-After estimated from recent job times, a job past its
 * deadline 504 request_timeout, a worker that crashed or failed 502 model_error. A job whose
 * client left fails with the signal's reason, as it was given.
 */
export class TracePool {
  /** test/engines/trace/tracer.test.ts reads the worker pids through this field. */
  private readonly pool: WorkerPool<TraceJobs>;
  private readonly timeoutMs: number;

  constructor(options: TracePoolOptions) {
    const workers = options.workers || availableParallelism();
    this.timeoutMs = options.timeout_ms;
    this.pool = new WorkerPool<TraceJobs>({
      entry: new URL(import.meta.url.endsWith('.ts') ? './worker-entry.mjs' : './worker-main.js', import.meta.url),
      workers,
      queue: options.queue || workers * 4,
      timeoutMs: options.timeout_ms,
      prestart: options.prestart ?? PRESTART_WORKERS,
    });
  }

  async run(task: TraceTask, signal: AbortSignal, onProgress?: (progress: TraceProgress) => void): Promise<TraceOutcome> {
    try {
      return await this.pool.run('trace', task, signal, onProgress);
    } catch (error) {
      throw signal.aborted ? (signal.reason ?? error) : this.apiError(error);
    }
  }

  /** Tracing jobs waiting for a worker now (the queue depth metric). */
  get waiting(): number {
    return this.pool.waiting;
  }

  /** Refuses with 503 when the queue is full: called before an input is fetched, and again on run. */
  assertCapacity(): void {
    try {
      this.pool.assertCapacity();
    } catch (error) {
      throw this.apiError(error);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private apiError(error: unknown): ApiError {
    if (error instanceof ApiError) return error;
    if (error instanceof PoolFullError) {
      return new ApiError('model_unavailable', {
        message: 'The tracer is at capacity; retry after the indicated time.',
        retryAfter: Math.max(1, Math.ceil(error.retryAfterMs / 1000)),
      });
    }
    if (error instanceof JobTimeoutError) {
      return new ApiError('request_timeout', {
        message: `The tracer gave up on this image after ${this.timeoutMs / 1000} s; a lower reasoning_effort or a smaller image traces faster.`,
      });
    }
    // WorkerExitedError (a crash, or killed from outside), JobFailedError, PoolClosedError.
    return new ApiError('model_error', { message: 'The tracer failed on this image.', cause: error });
  }
}
