// A tracer thread's entry: the sources are TypeScript, so each thread registers tsx itself
// (threads do not inherit loader hooks registered at run time by bin/inkwell.js).
import { register } from 'tsx/esm/api';

register();
const { default: runTraceTask } = await import('./worker.ts');
export default runTraceTask;
