// A worker entry for the latency benchmark: a job that does no work, so its round trip is the
// pool's own cost (IPC both ways, structured clone, the worker's message handling).
import { register } from 'tsx/esm/api';

register();
const { serveJobs } = await import('../../src/workers/serve.ts');
serveJobs({
  echo: (task, progress) => {
    if (task.progress) progress('accepted');
    return task.reply;
  },
});
