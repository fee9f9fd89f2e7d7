/**
 * The fault benchmark's /healthz poller, a process of its own so that reading the clients'
 * megabytes never delays a poll: polls `url`/healthz every `intervalMs` while told to (IPC
 * messages `start` and `stop`) and answers each `stop` with the waits it measured, in ms.
 */
import { setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

// The measuring process should wait for the server, not for the load beside it on its core: a
// higher priority where the system allows it (root), else as it is.
try {
  setPriority(-5);
} catch {
  // not permitted: the figures then hold a little of this process's own scheduling delay
}

const [url, intervalMs] = [process.argv[2]!, Number(process.argv[3] ?? 50)];
let running: Promise<number[]> | undefined;
let stopping = false;

async function poll(): Promise<number[]> {
  const waits: number[] = [];
  while (!stopping) {
    const started = performance.now();
    const response = await fetch(`${url}/healthz`);
    await response.arrayBuffer();
    waits.push(performance.now() - started);
    await sleep(intervalMs);
  }
  return waits;
}

process.on('message', async (message: string) => {
  if (message === 'start') {
    stopping = false;
    running = poll();
  } else if (message === 'stop' && running) {
    stopping = true;
    process.send!(await running);
    running = undefined;
  }
});
process.on('disconnect', () => process.exit(0));
