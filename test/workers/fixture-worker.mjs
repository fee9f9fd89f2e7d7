// A worker entry for the WorkerPool tests: small job kinds that stand for real work.
import { register } from 'tsx/esm/api';

register();
const { serveJobs } = await import('../../src/workers/serve.ts');

/** Blocks the event loop, as native code does: only killing the process stops it. */
function spin(ms) {
  for (const end = Date.now() + ms; Date.now() < end; );
}

serveJobs({
  echo: (task) => ({ pid: process.pid, task, type: task?.constructor?.name ?? null }),
  sleep: async (ms) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return process.pid;
  },
  spin: (ms) => {
    spin(ms);
    return process.pid;
  },
  progress: async ({ values, spinAfter }, progress) => {
    for (const value of values) {
      progress(value);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (spinAfter) spin(spinAfter);
    return 'done';
  },
  exit: (code) => process.exit(code),
  throw: (message) => {
    throw new TypeError(message);
  },
});
