import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { DatabaseOptions } from './database.ts';
import type { FromHeartbeatThread, HeartbeatThreadData, ToHeartbeatThread } from './instance-heartbeat-thread.ts';
import type { InstanceRepository } from './instances.ts';

/** Where the heartbeat ended up running. */
export type HeartbeatPlace = 'thread' | 'main-loop';

export interface HeartbeatOptions {
  everyMs: number;
  /**
   * How the store was opened, so a worker thread can open the same database on a connection of
   * its own. Without it, the heartbeat stays on the main loop (see InstanceHeartbeat).
   */
  database?: DatabaseOptions;
  /** The thread stops beating once the main thread has not answered for this long. */
  mainSilenceLimitMs: number;
  logger?: Logger;
}

/** A build runs the compiled thread; the sources run an entry that registers tsx first. */
const THREAD = new URL(import.meta.url.endsWith('.ts') ? './instance-heartbeat-entry.mjs' : './instance-heartbeat-thread.js', import.meta.url);
/** How long stop() waits for the thread at each step: to finish its beat and close its connection, then to be terminated. */
const STOP_WAIT_MS = 5_000;

/**
 * Keeps an instance's row fresh, from a worker thread with its own database connection and its
 * own timer: a heartbeat on the main loop starves while synchronous work holds it, and a stall
 * past the lease would make a live process look dead to the other replicas.
 *
 * The main loop beats until the thread reports its first beat, and again if the thread dies or
 * cannot start (its error is logged), so the lease never depends on the thread alone. Without
 * `database` (a store opened by a caller that did not say how, e.g. a test; or one that only its
 * own connection can see, like an in-memory SQLite database) there is no thread: the main loop
 * beats, and a stall past the lease can then let other replicas recover this process's
 * reservations (its own sweep never does).
 *
 * A safety valve keeps a truly wedged process from holding its reservations for ever: the main
 * loop tells the thread it is alive on every tick, and the thread stops beating once the main
 * thread has been silent for `mainSilenceLimitMs`; it beats again when the main thread answers.
 */
export class InstanceHeartbeat {
  private timer: NodeJS.Timeout | undefined;
  private worker: Worker | undefined;
  /** The thread has beaten: the main loop only tells it it is alive. */
  private offLoop = false;
  private stopping = false;
  private settlePlace!: (place: HeartbeatPlace) => void;
  private readonly placed = new Promise<HeartbeatPlace>((resolve) => {
    this.settlePlace = resolve;
  });

  constructor(
    private readonly instances: InstanceRepository,
    private readonly instanceId: string,
    private readonly options: HeartbeatOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), this.options.everyMs);
    this.timer.unref();
    if (this.options.database) this.startThread(this.options.database);
    else this.settlePlace('main-loop');
  }

  /**
   * Where the heartbeat runs: 'thread' once the thread has beaten, 'main-loop' when it stays
   * there. Awaiting it keeps the process alive meanwhile, which the unref'd thread does not.
   */
  async place(): Promise<HeartbeatPlace> {
    const waiting = setInterval(() => undefined, 60_000);
    try {
      return await this.placed;
    } finally {
      clearInterval(waiting);
    }
  }

  private startThread(database: DatabaseOptions): void {
    const workerData: HeartbeatThreadData = {
      database,
      instanceId: this.instanceId,
      everyMs: this.options.everyMs,
      mainSilenceLimitMs: this.options.mainSilenceLimitMs,
    };
    // No process flags: an operator's flags may not all be valid in a worker, and the thread
    // needs none (from the sources, its entry registers tsx itself).
    const worker = new Worker(THREAD, { workerData, execArgv: [] });
    this.worker = worker;
    worker.on('message', (message: FromHeartbeatThread) => {
      if (message.kind === 'beating') {
        this.offLoop = true;
        this.settlePlace('thread');
      } else {
        this.options.logger?.[message.level]({ instance: this.instanceId, ...message.fields }, message.message);
      }
    });
    worker.on('error', (error) => this.options.logger?.error({ err: error }, 'the instance heartbeat thread failed'));
    worker.on('exit', (code) => {
      this.worker = undefined;
      this.offLoop = false;
      if (this.stopping) return;
      this.options.logger?.error({ code }, 'the instance heartbeat thread exited; heartbeating on the main loop');
      this.settlePlace('main-loop');
    });
    // A heartbeat never keeps the process alive: a process with nothing else to do exits. After
    // the listeners: adding a 'message' listener refs the worker again.
    worker.unref();
  }

  private tick(): void {
    if (this.worker) this.worker.postMessage({ kind: 'alive' } satisfies ToHeartbeatThread);
    if (this.offLoop) return;
    this.instances.heartbeat(this.instanceId).catch((error: unknown) => this.options.logger?.error({ err: error }, 'instance heartbeat failed'));
  }

  /**
   * Stops beating. Resolves once the thread has exited, so no beat lands after it (the row can
   * then be removed); a thread that will not even be terminated is logged and left behind, unref'd.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.settlePlace('main-loop');
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const exitedWithin = (ms: number) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
      return Promise.race([exited.then(() => true), late]).finally(() => clearTimeout(timer));
    };
    // stop() is awaited: the process must not end before the thread has.
    worker.ref();
    try {
      // A thread still starting (seconds, from the sources) has nothing worth waiting for: it is
      // terminated. A first beat it may still land leaves a row holding no reservation, which a
      // later sweep prunes. One that beats finishes its beat and closes its connection first.
      if (this.offLoop) {
        worker.postMessage({ kind: 'stop' } satisfies ToHeartbeatThread);
        if (await exitedWithin(STOP_WAIT_MS)) return;
        this.options.logger?.warn({ wait_ms: STOP_WAIT_MS }, 'the instance heartbeat thread did not stop in time; terminating it');
      }
      void worker.terminate().catch(() => undefined);
      if (!(await exitedWithin(STOP_WAIT_MS))) {
        this.options.logger?.error({ wait_ms: STOP_WAIT_MS }, 'the instance heartbeat thread could not be terminated; leaving it behind');
      }
    } finally {
      worker.unref();
    }
  }
}
