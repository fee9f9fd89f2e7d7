import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { FromWorker, JobKinds, ToWorker } from './protocol.ts';

export type { JobKinds } from './protocol.ts';

export interface WorkerPoolOptions {
  /** The module each worker process runs: it calls serveJobs() with a handler per job kind. */
  entry: string | URL;
  /** Most worker processes alive at once (starting, working, idle or being killed). */
  workers: number;
  /** Most jobs that may wait for a worker; one more is refused at once (PoolFullError). */
  queue: number;
  /** Longest a job may run from when it is sent to a worker (a new worker's start-up included); then its process is killed. */
  timeoutMs: number;
  /**
   * How long the worker of a running job whose caller left may go on before it is killed
   * (default 0: at once). For jobs of milliseconds, letting one finish is cheaper than a new
   * process; the job's caller is answered at once either way.
   */
  abandonGraceMs?: number;
  /**
   * Workers started as soon as the pool is created (default 0: each on first use, when a job
   * finds none idle). A started worker holds its memory until close(); one that dies is replaced
   * only when a job needs it.
   */
  prestart?: number;
}

/** The queue is full. `retryAfterMs` estimates when a place frees up, from recent job times. */
export class PoolFullError extends Error {
  override readonly name = 'PoolFullError';
  constructor(readonly retryAfterMs: number) {
    super('The worker pool is at capacity.');
  }
}

/** A job ran past its deadline; its worker process has been killed. */
export class JobTimeoutError extends Error {
  override readonly name = 'JobTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`The job ran longer than ${timeoutMs} ms; its worker was killed.`);
  }
}

/** The worker process running the job exited (it crashed, or was killed from outside). */
export class WorkerExitedError extends Error {
  override readonly name = 'WorkerExitedError';
  constructor(
    readonly exitCode: number | null,
    readonly signalCode: NodeJS.Signals | null,
  ) {
    super(`The worker process exited while running the job (${signalCode ?? `code ${exitCode}`}).`);
  }
}

/** The job's handler threw in the worker (the worker lives on); the message is the handler's. */
export class JobFailedError extends Error {
  override readonly name = 'JobFailedError';
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(message);
  }
}

/** close() was called before the job finished, or run() after it. */
export class PoolClosedError extends Error {
  override readonly name = 'PoolClosedError';
  constructor() {
    super('The worker pool is closed.');
  }
}

/** How long close() waits for the killed workers to be reaped. */
const CLOSE_WAIT_MS = 2_000;
/** How many times a job is sent to a worker that dies before it starts the job (a worker killed while idle). */
const MAX_SENDS = 2;

interface Job {
  readonly id: number;
  readonly kind: string;
  readonly task: unknown;
  readonly signal: AbortSignal;
  readonly onProgress: ((value: unknown) => void) | undefined;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly onAbort: () => void;
  /** Sends to a worker so far. */
  sends: number;
  /** The worker acknowledged it: it is (or was) running, so it is never sent again. */
  started: boolean;
  sentAt: number;
  deadline: NodeJS.Timeout | undefined;
  /** Kills the worker of an abandoned job that has not finished within the grace period. */
  grace?: NodeJS.Timeout;
  settled: boolean;
}

/** One worker process and the job it holds, if any. */
class WorkerSlot {
  /** The handlers are loaded: a job can be sent. */
  ready = false;
  /** Killed (or asked to die); it still counts against the pool's size until it is reaped. */
  dying = false;
  job: Job | undefined;

  constructor(readonly worker: ChildProcess) {}

  get idle(): boolean {
    return this.ready && !this.dying && !this.job;
  }

  /** Holds no job and is not dying: ready, or still starting (a job given to it is sent once it is ready). */
  get free(): boolean {
    return !this.dying && !this.job;
  }

  kill(): void {
    this.dying = true;
    this.worker.kill('SIGKILL');
  }
}

/**
 * A fixed-size pool of worker *processes* (node:child_process fork) that run jobs of named kinds
 * — `pool.run('trace', task, signal, onProgress)` — each with a deadline. Processes rather than
 * threads: native code (sharp, VTracer, resvg) cannot be interrupted, and a worker thread that is
 * terminated leaves it running; a process is killed (SIGKILL), so a job past its deadline or
 * whose caller left stops using the CPU at once.
 *
 * - Workers start on first use (one per job that finds none idle, up to `workers`), or
 *   `prestart` of them when the pool is created, and stay until close(); a worker that dies is
 *   replaced by the next job that needs one.
 * - At most `queue` jobs wait, first in first out; one more is refused at once (PoolFullError),
 *   and so is assertCapacity(), which callers use before expensive preparation.
 * - A job's deadline runs from when it is sent to a worker; past it the process is killed and
 *   the job fails with JobTimeoutError. An aborted signal takes a waiting job out of the queue
 *   at once, or kills the worker of a running one (after `abandonGraceMs`, if it has not
 *   finished by then); the job fails with the signal's reason at once.
 * - A worker that exits while running a job fails that job alone (WorkerExitedError), and the
 *   queue moves on. A worker that dies before acknowledging a job (killed while idle, before the
 *   pool saw its exit) gets the job resent once, ahead of the queue.
 * - Workers run in their own process group (detached), so a Ctrl-C in a terminal reaches the
 *   server only, which closes the pool; they exit by themselves when the server's IPC channel
 *   closes (serveJobs). They run at a lower scheduling priority (nice 10) than the server.
 */
/** The niceness of worker processes: well below the server's own scheduling priority (nice 0). */
const WORKER_NICENESS = 10;

export class WorkerPool<Kinds extends JobKinds> {
  private readonly entry: string;
  private readonly size: number;
  private readonly queueLimit: number;
  private readonly timeoutMs: number;
  private readonly abandonGraceMs: number;
  /** Every live worker process (test/engines/trace/tracer.test.ts reads their pids here). */
  private readonly workers: WorkerSlot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Moving average of a job's run time, for PoolFullError.retryAfterMs. */
  private averageMs = 500;

  constructor(options: WorkerPoolOptions) {
    if (!(options.workers >= 1 && options.queue >= 0 && options.timeoutMs > 0)) {
      throw new RangeError(`WorkerPool needs workers >= 1, queue >= 0 and timeoutMs > 0 (got ${options.workers}, ${options.queue}, ${options.timeoutMs}).`);
    }
    this.entry = options.entry instanceof URL ? fileURLToPath(options.entry) : options.entry;
    this.size = options.workers;
    this.queueLimit = options.queue;
    this.timeoutMs = options.timeoutMs;
    this.abandonGraceMs = options.abandonGraceMs ?? 0;
    for (let i = 0; i < Math.min(options.prestart ?? 0, this.size); i++) this.spawn();
  }

  /**
   * Runs a job of `kind` in a worker process and resolves with its result. Rejects with
   * PoolFullError, JobTimeoutError, WorkerExitedError, JobFailedError, PoolClosedError, or the
   * signal's reason once it aborts.
   */
  run<K extends keyof Kinds & string>(
    kind: K,
    task: Kinds[K]['task'],
    signal: AbortSignal,
    onProgress?: (value: Kinds[K]['progress']) => void,
  ): Promise<Kinds[K]['result']> {
    if (this.closed) return Promise.reject(new PoolClosedError());
    if (signal.aborted) return Promise.reject(signal.reason);
    try {
      this.assertCapacity();
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        kind,
        task,
        signal,
        onProgress: onProgress as ((value: unknown) => void) | undefined,
        resolve: resolve as (result: unknown) => void,
        reject,
        onAbort: () => this.abandon(job, signal.reason),
        sends: 0,
        started: false,
        sentAt: 0,
        deadline: undefined,
        settled: false,
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Jobs waiting for a worker now. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Throws PoolFullError when a new job would be refused. */
  assertCapacity(): void {
    // Jobs wait only while no worker is free, so a full queue means a new job would wait too.
    if (this.queue.length >= this.queueLimit && !this.canStartNow()) {
      throw new PoolFullError((this.queueLimit / this.size) * this.averageMs);
    }
  }

  /** Fails every job, kills every worker, and waits (at most CLOSE_WAIT_MS) for them to be reaped. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.fail(job, new PoolClosedError());
    const reaped = this.workers.map((slot) => new Promise((resolve) => slot.worker.once('close', resolve)));
    for (const slot of this.workers) {
      if (slot.job) this.fail(slot.job, new PoolClosedError());
      slot.kill();
    }
    let timer: NodeJS.Timeout | undefined;
    // A worker already dead was reaped and left the list; the bound covers one that never reports.
    await Promise.race([Promise.all(reaped), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }

  private canStartNow(): boolean {
    return this.workers.some((slot) => slot.free) || this.workers.length < this.size;
  }

  /**
   * Hands waiting jobs to idle workers, then to free ones still starting (a prestarted worker, or
   * one whose job's caller left), starting new workers while the pool is below its size.
   */
  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const slot =
        this.workers.find((candidate) => candidate.idle) ??
        this.workers.find((candidate) => candidate.free) ??
        (this.workers.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      this.assign(slot, this.queue.shift()!);
    }
  }

  private spawn(): WorkerSlot {
    const worker = fork(this.entry, [], {
      // Structured clone: buffers cross as bytes, not as JSON arrays of numbers.
      serialization: 'advanced',
      // The entry registers what it needs itself (tsx); the server's flags (--import, --test) are not its own.
      execArgv: [],
      // Own process group: a Ctrl-C in the terminal reaches the server, which stops the workers.
      detached: true,
      // Workers do not write to stdout (the server's log); a native crash still shows on stderr.
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    // Background work yields the CPU to the event loop that serves every request: on a machine
    // with fewer cores than busy processes, a long trace or render slows down rather than stalls
    // everyone's answers. Raising a process's niceness needs no privilege.
    if (worker.pid !== undefined) {
      try {
        setPriority(worker.pid, WORKER_NICENESS);
      } catch {
        // a platform without priorities: the worker runs at the server's
      }
    }
    const slot = new WorkerSlot(worker);
    this.workers.push(slot);
    worker.on('message', (message: FromWorker) => this.receive(slot, message));
    // 'close' rather than 'exit': it comes after the last message from the worker has been read.
    worker.once('close', (exitCode: number | null, signalCode: NodeJS.Signals | null) => this.reap(slot, exitCode, signalCode));
    // A failed spawn, kill or send is reported here. A process that never started may never
    // report 'close'; it is reaped now.
    worker.on('error', () => {
      if (worker.pid === undefined) this.reap(slot, null, null);
      else slot.kill();
    });
    return slot;
  }

  private assign(slot: WorkerSlot, job: Job): void {
    slot.job = job;
    job.sends++;
    job.sentAt = performance.now();
    job.deadline = setTimeout(() => {
      this.fail(job, new JobTimeoutError(this.timeoutMs));
      slot.kill();
    }, this.timeoutMs);
    if (slot.ready) this.send(slot, job);
  }

  private send(slot: WorkerSlot, job: Job): void {
    const message: ToWorker = { type: 'run', id: job.id, kind: job.kind, task: job.task };
    try {
      // A channel that has closed under us: the worker is gone or going; its 'close' resends the job.
      slot.worker.send(message, (error) => error && slot.kill());
    } catch (error) {
      // The task cannot be cloned (DataCloneError): the job's own fault; the worker is free again.
      slot.job = undefined;
      this.fail(job, error);
      this.dispatch();
    }
  }

  private receive(slot: WorkerSlot, message: FromWorker): void {
    if (slot.dying) return;
    if (message.type === 'ready') {
      slot.ready = true;
      if (slot.job) this.send(slot, slot.job);
      else this.dispatch(); // its job was abandoned while it started
      return;
    }
    const job = slot.job;
    if (!job || job.id !== message.id) return; // about a job already decided
    if (job.settled) {
      // An abandoned job that finished within its grace period: the worker is kept.
      if (message.type === 'done' || message.type === 'failed') {
        clearTimeout(job.grace);
        slot.job = undefined;
        this.dispatch();
      }
      return;
    }
    switch (message.type) {
      case 'started':
        job.started = true;
        break;
      case 'progress':
        try {
          job.onProgress?.(message.value);
        } catch (error) {
          // The caller's own failure: its job is no longer wanted.
          this.abandon(job, error);
        }
        break;
      case 'done':
        this.averageMs = this.averageMs * 0.8 + (performance.now() - job.sentAt) * 0.2;
        slot.job = undefined;
        this.succeed(job, message.result);
        this.dispatch();
        break;
      case 'failed':
        slot.job = undefined;
        this.fail(job, new JobFailedError(message.error.name, message.error.message));
        this.dispatch();
        break;
    }
  }

  /** A worker process is gone: its job fails, or is resent if it never started; the queue moves on. */
  private reap(slot: WorkerSlot, exitCode: number | null, signalCode: NodeJS.Signals | null): void {
    const index = this.workers.indexOf(slot);
    if (index === -1) return; // reaped already (a spawn that failed reports twice)
    this.workers.splice(index, 1);
    slot.dying = true;
    const job = slot.job;
    slot.job = undefined;
    clearTimeout(job?.grace);
    if (job && !job.settled) {
      clearTimeout(job.deadline);
      if (!job.started && job.sends < MAX_SENDS && !this.closed) this.queue.unshift(job);
      else this.fail(job, new WorkerExitedError(exitCode, signalCode));
    }
    this.dispatch();
  }

  /** The caller left (or its progress callback threw): out of the queue, or its worker killed. */
  private abandon(job: Job, reason: unknown): void {
    if (job.settled) return;
    const waiting = this.queue.indexOf(job);
    if (waiting !== -1) this.queue.splice(waiting, 1);
    const slot = this.workers.find((candidate) => candidate.job === job);
    if (slot?.ready && this.abandonGraceMs > 0) {
      // Running: it may finish within the grace period (and its worker serve on); else killed.
      job.grace = setTimeout(() => slot.job === job && slot.kill(), this.abandonGraceMs);
    } else if (slot?.ready) slot.kill(); // running: only killing its process stops it
    else if (slot) slot.job = undefined; // its worker is still starting and never got it: it stays, for the next job
    this.fail(job, reason);
  }

  private succeed(job: Job, result: unknown): void {
    if (this.finish(job)) job.resolve(result);
  }

  private fail(job: Job, error: unknown): void {
    if (this.finish(job)) job.reject(error);
  }

  /** Marks a job decided (once): no deadline, no abort listener. False if it was decided already. */
  private finish(job: Job): boolean {
    if (job.settled) return false;
    job.settled = true;
    clearTimeout(job.deadline);
    job.signal.removeEventListener('abort', job.onAbort);
    return true;
  }
}
