// A worker process's entry (see WorkerPool in src/workers/pool.ts): the job kinds it serves, each
// mapped to its handler. The sources are TypeScript, so the process registers tsx itself (it is
// started without the server's flags).
import { register } from 'tsx/esm/api';

register();
const { serveJobs } = await import('../../workers/serve.ts');
const { default: runTraceTask } = await import('./worker.ts');
serveJobs({ trace: (task, progress) => runTraceTask(task, () => progress('accepted')) });
