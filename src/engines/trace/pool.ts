import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ApiError } from '../../contract/errors.ts';
import type { TraceOutcome, TraceTask } from './job.ts';

export interface TracePoolOptions {
  /** 0 = one per CPU core. */
  threads: number;
  /** Jobs that may wait for a thread; 0 = four per thread. */
  queue: number;
}

/**
 * The threads that decode and trace, so the event loop never does. Threads start on first use
 * and stop when idle; a job that finds the queue full is refused at once with 503 and a
 * Retry-After estimated from recent job times, and a job whose client left is dropped from the
 * queue (or its thread stopped) through the request's abort signal.
 */
export class TracePool {
  private pool: Piscina | undefined;
  private readonly threads: number;
  private readonly queue: number;
  /** Moving average of a job's run time, for Retry-After. */
  private averageMs = 500;

  constructor(options: TracePoolOptions) {
    this.threads = options.threads || availableParallelism();
    this.queue = options.queue || this.threads * 4;
  }

  async run(task: TraceTask, signal: AbortSignal): Promise<TraceOutcome> {
    this.pool ??= new Piscina({
      filename: new URL('./worker-entry.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: this.threads,
      maxQueue: this.queue,
      idleTimeout: 60_000,
      // Threads register tsx themselves; inheriting the parent's flags (--test, --import) would not help.
      execArgv: [],
    });
    // Checked here too: piscina applies maxQueue only once its threads are up, so a burst
    // arriving while they start would otherwise all queue.
    if (this.pool.queueSize >= this.queue) throw this.busy();
    const started = performance.now();
    try {
      const outcome = (await this.pool.run(task, { signal })) as TraceOutcome;
      this.averageMs = this.averageMs * 0.8 + (performance.now() - started) * 0.2;
      return outcome;
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      if (error instanceof Error && /queue is at limit/i.test(error.message)) throw this.busy();
      throw new ApiError('model_error', { message: 'The tracer failed on this image.', cause: error });
    }
  }

  private busy(): ApiError {
    const waitSeconds = Math.ceil(((this.queue / this.threads) * this.averageMs) / 1000);
    return new ApiError('model_unavailable', {
      message: 'The tracer is at capacity; retry after the indicated time.',
      retryAfter: Math.max(1, waitSeconds),
    });
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}
