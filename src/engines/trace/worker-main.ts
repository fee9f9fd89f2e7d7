// A tracer worker process (see WorkerPool in src/workers/pool.ts): the job kinds it serves, each
// mapped to its handler. The pool forks the compiled dist/engines/trace/worker-main.js; a run
// from the sources forks worker-entry.mjs, which registers tsx and then imports this file.
import { serveJobs } from '../../workers/serve.ts';
import type { TraceJobs } from './pool.ts';
import runTraceTask from './worker.ts';

serveJobs<TraceJobs>({ trace: (task, progress) => runTraceTask(task, () => progress('accepted')) });
