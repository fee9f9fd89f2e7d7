/**
 * The messages a WorkerPool and its worker processes exchange over the IPC channel, with
 * `serialization: 'advanced'` (structured clone: a Uint8Array crosses as bytes, not as JSON).
 */

/** What each kind of job takes, reports while it runs, and returns: `{ trace: { task, progress, result } }`. */
export type JobKinds = { [kind: string]: { task: unknown; progress: unknown; result: unknown } };

/** Runs one job in a worker process; `progress` reports while it runs (before the result). */
export type JobHandler<Kind extends JobKinds[string]> = (task: Kind['task'], progress: (value: Kind['progress']) => void) => Promise<Kind['result']> | Kind['result'];

/** The handler of every job kind a worker entry serves. */
export type JobHandlers<Kinds extends JobKinds> = { [K in keyof Kinds]: JobHandler<Kinds[K]> };

/** Parent → worker. */
export type ToWorker = { type: 'run'; id: number; kind: string; task: unknown };

/**
 * Worker → parent. `ready` once the handlers are loaded; `started` as soon as a job arrives, so
 * a job whose worker dies before it (a worker killed while idle) is known never to have run.
 */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'started'; id: number }
  | { type: 'progress'; id: number; value: unknown }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'failed'; id: number; error: { name: string; message: string } };
