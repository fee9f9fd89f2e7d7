import type { FromWorker, JobHandlers, JobKinds, ToWorker } from './protocol.ts';

/**
 * The worker side of a WorkerPool: called once by a worker entry with a handler per job kind.
 * Runs the jobs the pool sends (one at a time: the pool never sends a busy worker another) and
 * answers each with its result or error. The process exits when its IPC channel closes — the
 * pool closed, or the server died — so a worker never outlives the server by more than the job
 * it is running.
 */
export function serveJobs<Kinds extends JobKinds>(handlers: JobHandlers<Kinds>): void {
  if (!process.send) throw new Error('serveJobs() runs in a worker process started by WorkerPool (it has no IPC channel).');
  // A callback, so a send on a closed channel is dropped instead of raising an 'error' event:
  // the 'disconnect' below ends the process anyway.
  const send = (message: FromWorker) => process.send!(message, undefined, undefined, () => undefined);
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: ToWorker) => {
    if (message.type === 'run') void runJob(message);
  });

  async function runJob({ id, kind, task }: ToWorker): Promise<void> {
    send({ type: 'started', id });
    let reply: FromWorker;
    try {
      if (!Object.hasOwn(handlers, kind)) throw new Error(`This worker has no handler for jobs of kind '${kind}'.`);
      const result = await handlers[kind as keyof Kinds](task as never, (value) => send({ type: 'progress', id, value }));
      reply = { type: 'done', id, result };
    } catch (error) {
      reply = failure(id, error);
    }
    try {
      send(reply);
    } catch (error) {
      send(failure(id, error)); // a result that cannot be cloned (DataCloneError)
    }
  }

  send({ type: 'ready' });
}

function failure(id: number, error: unknown): FromWorker {
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  return { type: 'failed', id, error: { name, message } };
}
