// The instance heartbeat's worker thread: its own connection to the database and its own timer,
// so a main event loop held by synchronous work still renews its lease. instance-heartbeat.ts
// starts it: a build runs the compiled dist/store/instance-heartbeat-thread.js; a run from the
// sources runs instance-heartbeat-entry.mjs, which registers tsx and then imports this file.
import { parentPort, workerData } from 'node:worker_threads';
import { createDatabase, type DatabaseOptions } from './database.ts';
import { InstanceRepository } from './instances.ts';

export interface HeartbeatThreadData {
  /** How the main thread opened the store: this thread opens the same database on its own. */
  database: DatabaseOptions;
  instanceId: string;
  everyMs: number;
  /** Past this long without word from the main thread, the thread stops beating (see instance-heartbeat.ts). */
  mainSilenceLimitMs: number;
}

/** From the main thread: it is alive (sent on its own timer), or the thread should stop. */
export type ToHeartbeatThread = { kind: 'alive' } | { kind: 'stop' };

/** To the main thread, which logs for it: the thread has no logger of its own. */
export type FromHeartbeatThread =
  | { kind: 'beating' }
  | { kind: 'log'; level: 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> };

const port = parentPort;
if (!port) throw new Error('instance-heartbeat-thread runs as a worker thread only');
const data = workerData as HeartbeatThreadData;
const post = (message: FromHeartbeatThread) => port.postMessage(message);

// One connection is all a heartbeat needs. SQLite: a better-sqlite3 connection of its own to the
// same WAL file, whose busy timeout (set by createDatabase) waits for a writer in this thread,
// never on the main loop. PostgreSQL: a pool of one client.
const { db } = createDatabase({ ...data.database, poolSize: 1 });
const instances = new InstanceRepository(db);

let mainSeenAt = Date.now();
let paused = false;
let announced = false;
let beating: Promise<void> | undefined;

async function beat(): Promise<void> {
  const silentMs = Date.now() - mainSeenAt;
  if (silentMs > data.mainSilenceLimitMs) {
    if (!paused) {
      paused = true;
      post({
        kind: 'log',
        level: 'error',
        message: 'the main thread has not answered; heartbeat paused, so other processes may recover this one\'s reservations',
        fields: { silent_ms: silentMs },
      });
    }
    return;
  }
  if (paused) {
    paused = false;
    post({ kind: 'log', level: 'warn', message: 'the main thread answers again; heartbeat resumed' });
  }
  try {
    await instances.heartbeat(data.instanceId);
    if (!announced) {
      announced = true;
      post({ kind: 'beating' });
    }
  } catch (error) {
    post({ kind: 'log', level: 'error', message: 'instance heartbeat failed', fields: { error: (error as Error).message ?? String(error) } });
  }
}

/** Never two beats at once: a slow database skips a tick rather than piling writes up. */
function tick(): void {
  beating ??= beat().finally(() => {
    beating = undefined;
  });
}

const timer = setInterval(tick, data.everyMs);
tick();

port.on('message', (message: ToHeartbeatThread) => {
  if (message.kind === 'alive') {
    mainSeenAt = Date.now();
    return;
  }
  clearInterval(timer);
  // The beat in flight finishes first, so no write lands after the main thread removes the row.
  void (beating ?? Promise.resolve())
    .then(() => db.destroy())
    .catch((error: unknown) => post({ kind: 'log', level: 'warn', message: 'closing the heartbeat connection failed', fields: { error: String(error) } }))
    // Nothing is left to keep the thread alive: it exits, with code 0.
    .finally(() => port.close());
});
