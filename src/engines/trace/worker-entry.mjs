// A tracer process's entry: the sources are TypeScript, so the process registers tsx itself
// (it is started without the parent's flags).
import { register } from 'tsx/esm/api';
import workerpool from 'workerpool';

register();
const { default: runTraceTask } = await import('./worker.ts');
workerpool.worker({ trace: (task) => runTraceTask(task, () => workerpool.workerEmit('accepted')) });
